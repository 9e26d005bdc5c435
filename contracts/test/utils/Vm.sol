// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The cheatcodes the payment-contract tests use, and nothing else.
/// @dev Hardhat's Solidity test runner (EDR) answers calls to the standard cheatcode address,
/// `Test.vm`, with Foundry's cheatcode ABI: each declaration below must keep Foundry's exact
/// signature (name and parameter types, hence selector) and return layout. Add a cheatcode here
/// only when a test needs it.
interface Vm {
    /// @notice One entry of `getRecordedLogs`, in the field order the runner encodes it.
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    // ----- accounts -----

    /// @notice The address of the account whose private key is `privateKey`.
    function addr(uint256 privateKey) external pure returns (address);

    /// @notice Signs `digest` with `privateKey` (secp256k1, as an EOA signs).
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);

    /// @notice Names `account` in traces and failure output.
    function label(address account, string calldata newLabel) external;

    /// @notice Sets the native balance of `account`.
    function deal(address account, uint256 newBalance) external;

    // ----- caller and block -----

    /// @notice The next call (only) is made with `msg.sender == msgSender`.
    function prank(address msgSender) external;

    /// @notice Every call until `stopPrank` is made with `msg.sender == msgSender`.
    function startPrank(address msgSender) external;

    /// @notice Ends a `startPrank`.
    function stopPrank() external;

    /// @notice Sets `block.timestamp`.
    function warp(uint256 newTimestamp) external;

    // ----- fuzzing -----

    /// @notice Discards the current fuzz input when `condition` is false (the run is not a failure).
    function assume(bool condition) external pure;

    // ----- expectations on the next call -----

    /// @notice The next call must revert, whatever the revert data.
    function expectRevert() external;

    /// @notice The next call must revert with exactly the custom error of selector `revertData`, without arguments.
    function expectRevert(bytes4 revertData) external;

    /// @notice The next call must revert with exactly `revertData`.
    function expectRevert(bytes calldata revertData) external;

    /// @notice The next event emitted must match the one the test emits next; topics 1 to 3 and
    /// the data are compared only where asked.
    function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData) external;

    /// @notice As above, and the event must come from `emitter`.
    function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData, address emitter)
        external;

    // ----- logs -----

    /// @notice Starts recording every event emitted from now on.
    function recordLogs() external;

    /// @notice The events recorded since `recordLogs` or the last call of this, which it clears.
    function getRecordedLogs() external returns (Log[] memory logs);

    // ----- formatting (used by the assertions' failure messages) -----

    function toString(uint256 value) external pure returns (string memory);

    function toString(address value) external pure returns (string memory);

    function toString(bool value) external pure returns (string memory);

    function toString(bytes32 value) external pure returns (string memory);

    function toString(bytes calldata value) external pure returns (string memory);
}
