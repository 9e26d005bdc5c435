// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "./Vm.sol";

/// @notice The project's own minimal base of Solidity tests, run by Hardhat's Solidity test runner:
/// the cheatcode handle `vm`, assertions, `bound`, `makeAddr` and the invariant target list.
/// It holds exactly what the tests under `contracts/test/` use; extend it when a test needs more.
/// @dev The runner finds tests by function name (`test…`, `testFuzz…` with parameters, `invariant…`,
/// after `setUp`) and counts a test as failed when it reverts, so every assertion fails by reverting
/// with an `Error(string)` that names the values compared. All public functions here are `view`:
/// a contract deriving from `Test` can be an invariant target (a handler), and the invariant fuzzer
/// calls every non-view function of its targets.
abstract contract Test {
    /// @notice Foundry's cheatcode address, `address(uint160(uint256(keccak256("hevm cheat code"))))`.
    Vm internal constant vm = Vm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);

    address[] private _targetedContracts;

    // =========================================================================
    // Assertions
    // =========================================================================

    function assertTrue(bool condition) internal pure {
        assertTrue(condition, "");
    }

    function assertTrue(bool condition, string memory message) internal pure {
        if (!condition) _failAssertion(message, "expected true, got false");
    }

    function assertFalse(bool condition) internal pure {
        if (condition) _failAssertion("", "expected false, got true");
    }

    function assertEq(uint256 left, uint256 right) internal pure {
        assertEq(left, right, "");
    }

    function assertEq(uint256 left, uint256 right, string memory message) internal pure {
        if (left != right) _failAssertion(message, _notEqual(vm.toString(left), vm.toString(right)));
    }

    function assertEq(address left, address right) internal pure {
        if (left != right) _failAssertion("", _notEqual(vm.toString(left), vm.toString(right)));
    }

    function assertEq(bool left, bool right) internal pure {
        if (left != right) _failAssertion("", _notEqual(vm.toString(left), vm.toString(right)));
    }

    function assertEq(bytes32 left, bytes32 right) internal pure {
        if (left != right) _failAssertion("", _notEqual(vm.toString(left), vm.toString(right)));
    }

    function assertEq(bytes memory left, bytes memory right) internal pure {
        if (keccak256(left) != keccak256(right)) {
            _failAssertion("", _notEqual(vm.toString(left), vm.toString(right)));
        }
    }

    /// @dev Reverts with "<message>: <detail>", or "assertion failed: <detail>" without a message.
    function _failAssertion(string memory message, string memory detail) private pure {
        string memory prefix = bytes(message).length == 0 ? "assertion failed" : message;
        revert(string.concat(prefix, ": ", detail));
    }

    function _notEqual(string memory left, string memory right) private pure returns (string memory) {
        return string.concat(left, " != ", right);
    }

    // =========================================================================
    // Fuzzing helpers
    // =========================================================================

    /// @notice Maps any `x` into the inclusive range [min, max], keeping `x` itself when it is
    /// already inside. An `x` below the range counts up from `min` (0 → min, 1 → min + 1, …) and an
    /// `x` above it counts down from `max` (type(uint256).max → max, one less → max - 1, …), both
    /// wrapping around the range, so the fuzzer's favourite extremes land on the range's edges.
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min is greater than max");
        if (x >= min && x <= max) return x;
        // x is outside [min, max], so the range is not all of uint256 and its size cannot overflow.
        uint256 size = max - min + 1;
        if (x < min) return min + (x % size);
        return max - ((type(uint256).max - x) % size);
    }

    /// @notice A fresh address derived from `name` (the same name always gives the same address),
    /// labelled `name` in traces.
    function makeAddr(string memory name) internal returns (address account) {
        account = vm.addr(uint256(keccak256(bytes(name))));
        vm.label(account, name);
    }

    // =========================================================================
    // Invariant testing
    // =========================================================================

    /// @notice Restricts the invariant fuzzer to calling the contracts added here (by default it
    /// calls every contract deployed in `setUp`).
    function targetContract(address target) internal {
        _targetedContracts.push(target);
    }

    /// @notice Read by the invariant runner after `setUp`; empty means no restriction.
    function targetContracts() public view returns (address[] memory) {
        return _targetedContracts;
    }
}
