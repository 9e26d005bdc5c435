// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Test owner-and-endowment contract (e.g. a multisig that is also the endowment) that, on
/// receiving the native coin, calls back into the payment contract with `payload` and records the
/// outcome. With the contract as owner, only the reentrancy guard stands in the way.
contract ReentrantEndowment {
    address public target;
    bytes public payload;
    bool public reentered;
    bool public lastCallSucceeded;
    bytes public lastReturnData;

    function arm(address target_, bytes calldata payload_) external {
        target = target_;
        payload = payload_;
    }

    /// @notice Lets the test drive the payment contract as this contract (the owner).
    function execute(address to, bytes calldata data) external returns (bytes memory) {
        (bool ok, bytes memory ret) = to.call(data);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        return ret;
    }

    receive() external payable {
        if (target == address(0)) return;
        address t = target;
        target = address(0);
        reentered = true;
        (lastCallSucceeded, lastReturnData) = t.call(payload);
    }
}
