// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice Hostile test token: balances and allowances look fine, but `transfer` and `transferFrom`
/// return false and move nothing, as some old tokens do instead of reverting.
contract ReturnsFalseToken is ERC20 {
    constructor() ERC20("Returns False", "RFALSE") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function transfer(address, uint256) public pure override returns (bool) {
        return false;
    }

    function transferFrom(address, address, uint256) public pure override returns (bool) {
        return false;
    }
}
