// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Test endowment whose `receive` needs far more than the 2300-gas stipend of
/// `transfer`/`send` (it writes storage), proving the payment contract forwards all gas.
contract GasHungryEndowment {
    uint256 public received;
    uint256 public deposits;

    receive() external payable {
        received += msg.value;
        deposits += 1;
    }
}
