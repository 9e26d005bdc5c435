// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice Hostile test token: balances and allowances look fine, but every transfer reverts
/// (a paused or blacklisting token). The payment contract maps this to its own error.
contract RevertingToken is ERC20 {
    error TransfersPaused();

    constructor() ERC20("Reverting", "REVERT") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from != address(0)) revert TransfersPaused();
        super._update(from, to, value);
    }
}
