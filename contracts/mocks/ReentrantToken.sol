// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice Hostile test token: when armed, every `transfer`/`transferFrom` first calls `target` with
/// `payload` (e.g. `receiveToken` or `transferToEndowment` on the payment contract), records whether
/// that re-entrant call succeeded and what it returned, then performs the transfer normally.
contract ReentrantToken is ERC20 {
    address public target;
    bytes public payload;
    bool public reentered;
    bool public lastCallSucceeded;
    bytes public lastReturnData;

    constructor() ERC20("Reentrant", "REENTER") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function arm(address target_, bytes calldata payload_) external {
        target = target_;
        payload = payload_;
    }

    function transfer(address to, uint256 value) public override returns (bool) {
        _reenter();
        return super.transfer(to, value);
    }

    function transferFrom(address from, address to, uint256 value) public override returns (bool) {
        _reenter();
        return super.transferFrom(from, to, value);
    }

    function _reenter() private {
        if (target == address(0)) return;
        address t = target;
        target = address(0); // once per arming, so the attack cannot recurse forever
        reentered = true;
        (lastCallSucceeded, lastReturnData) = t.call(payload);
    }
}
