// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice Hostile test token: burns 1% (rounded up) of every transfer, so the recipient gets less
/// than the amount asked for. The payment contract must refuse it rather than over-credit.
contract FeeOnTransferToken is ERC20 {
    constructor() ERC20("Fee On Transfer", "FOT") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from == address(0) || to == address(0)) return super._update(from, to, value);
        uint256 fee = (value + 99) / 100;
        super._update(from, address(0), fee);
        super._update(from, to, value - fee);
    }
}
