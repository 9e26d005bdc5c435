// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice Test stablecoin with configurable decimals (6 for "USDC", 18 for "DAI") and an open faucet.
/// @dev Local chains and tests only: anyone may mint.
contract MockStablecoin is ERC20 {
    uint8 private immutable _decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20(name_, symbol_) {
        _decimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// @notice Faucet: mints `amount` base units to `to`.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
