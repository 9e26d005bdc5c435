// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Test stand-in for Filecoin's FilForwarder: records each `forward` call, and can be told
/// to revert (as the real one does for an invalid or unreachable address).
contract MockFilForwarder {
    error ForwardFailed();

    bool public shouldRevert;
    bytes public lastDestination;
    uint256 public lastValue;
    uint256 public calls;

    function setShouldRevert(bool value) external {
        shouldRevert = value;
    }

    function forward(bytes calldata destination) external payable {
        if (shouldRevert) revert ForwardFailed();
        lastDestination = destination;
        lastValue = msg.value;
        calls += 1;
    }
}
