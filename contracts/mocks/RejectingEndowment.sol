// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Test endowment that refuses the native coin: a sweep to it must fail loudly.
contract RejectingEndowment {
    error NoThanks();

    receive() external payable {
        revert NoThanks();
    }
}
