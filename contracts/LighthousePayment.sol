// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

/// @notice The Filecoin FilForwarder singleton: sends FIL to non-EVM (f0/f1/f2/f3) addresses.
interface IFilForwarder {
    function forward(bytes calldata destination) external payable;
}

/**
 * @title LighthousePayment
 * @notice Receives storage payments in allow-listed ERC-20 stablecoins or in the native coin, and lets
 * the owner sweep them to the endowment (or to an old-style Filecoin address through the FilForwarder).
 *
 * ABI compatibility. Every entry of the provider's payment contract ("FundReceive", SDK ABI variant A)
 * is kept byte for byte: the 15 functions with their parameter names, order and mutability
 * (`receiveToken(uint256 _amount, address _token)` is amount first, `transferToEndowment(address _token,
 * uint256 _amount)` is token first), the payable `receive` and `fallback`, the events `ReceivedPayment`
 * (sender and tokenAddress indexed) and `TokenTransferred` (all three fields indexed), the seven
 * argument-less custom errors and Ownable's two. Everything below marked "additive" is new; nothing
 * the original had was removed or renamed, so the provider's SDK, backend and indexers keep working.
 *
 * Choices, and why:
 * - Tokens stay in this contract until the owner calls `transferToEndowment`, as in the original
 *   (its `getERC20Balance`/`getNativeBalance` read the contract's own holdings).
 * - `receiveToken` checks, in this order: token allow-listed (TOKEN_NOT_SUPPORTED), amount non-zero
 *   (additive INVALID_AMOUNT), payer balance (INSUFFICIENT_USER_BALANCE), allowance
 *   (TOKEN_APPROVAL_FAILED). It then pulls with SafeERC20's `trySafeTransferFrom` (tokens that
 *   return nothing work; a `false` return or a revert becomes TOKEN_PAYMENT_FAILED, keeping the
 *   original error surface instead of adding SafeERC20FailedOperation) and measures the balance
 *   delta: a fee-on-transfer or otherwise short-paying token is rejected with TOKEN_PAYMENT_FAILED,
 *   so the event never over-reports. The event's `amount` is the amount actually received.
 * - Zero payments revert with INVALID_AMOUNT (additive): they would only mint empty txIds.
 * - `txId` is a global counter shared by token and native payments. The first payment gets txId 1,
 *   each later one the previous plus one; a reverted payment consumes none. It is stored as the next
 *   id and initialised to 1 in the constructor, so the first payment does not pay for a
 *   zero-to-non-zero write that later ones avoid (the SDK sends its gas estimate unpadded).
 *   `paymentCount()` (additive) reads it: the txId of the latest payment, 0 before any.
 * - `timestamp` is `block.timestamp`; `data` is empty for `receiveToken` and `receive`, and the
 *   calldata for `fallback`, so a payer can attach a memo to a native payment.
 * - `receive()` stays payable and guard-free so a plain value transfer (the SDK's native path) is
 *   cheap and its gas does not depend on state. `fallback()` stays payable for ABI parity but
 *   reverts with the additive FUNCTION_NOT_FOUND(selector) when no value is sent, so a mistyped or
 *   unknown call fails loudly instead of "succeeding" (the original accepted anything).
 * - ReentrancyGuard (storage-based; transient storage is not assumed on FEVM) protects
 *   `receiveToken`, `transferToEndowment` and `transferToOldAddress`.
 * - Native sends use a low-level `call` with all gas, never `transfer`/`send`: the 2300-gas stipend
 *   breaks on FEVM contract recipients. A failed send reverts with ENDOWMENT_TRANSFER_FAILED.
 * - `transferToEndowment` may sweep any token, listed or not (direct donations, de-listed tokens):
 *   the destination is fixed, so this cannot leak funds. Only the owner can move money out.
 * - `transferToOldAddress` calls `FilForwarder.forward{value}(destination)`; an empty destination or
 *   an unset forwarder is INVALID_ZERO_ADDRESS, a forwarder without code or one that reverts is
 *   ENDOWMENT_TRANSFER_FAILED. The additive `FilForwarded(destination, amount)` event records the
 *   byte destination, which `TokenTransferred`'s address field cannot hold.
 * - Setters reject the zero address (INVALID_ZERO_ADDRESS) and emit additive events.
 * - Ownership is OpenZeppelin's one-step `Ownable`, as in the original, so owner scripts keep working.
 *   Deliberate deviation: `renounceOwnership` reverts with RENOUNCE_DISABLED (additive), because an
 *   ownerless contract would strand every payment forever (only the owner can sweep).
 * - Not upgradeable, no meta-transactions (the "forwarder" is FilForwarder, not ERC-2771), no
 *   on-chain pricing and no per-user ledger: the backend indexes `ReceivedPayment`.
 *
 * Gas note for operators: the SDK uses `estimateGas` with no margin. A token payment estimated while
 * the contract holds some of that token but mined after a sweep of the whole balance costs more
 * (zero-to-non-zero write) and can run out of gas; sweeping all but one unit avoids that.
 */
contract LighthousePayment is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    // ----- errors of the original contract -----
    error ENDOWMENT_TRANSFER_FAILED();
    error INSUFFICIENT_CONTRACT_BALANCE();
    error INSUFFICIENT_USER_BALANCE();
    error INVALID_ZERO_ADDRESS();
    error TOKEN_APPROVAL_FAILED();
    error TOKEN_NOT_SUPPORTED();
    error TOKEN_PAYMENT_FAILED();

    // ----- additive errors -----
    /// @notice A payment or transfer of zero.
    error INVALID_AMOUNT();
    /// @notice A call with no value to a function this contract does not have.
    error FUNCTION_NOT_FOUND(bytes4 selector);
    /// @notice `renounceOwnership` is disabled: it would strand the funds.
    error RENOUNCE_DISABLED();

    // ----- events of the original contract -----
    event ReceivedPayment(
        address indexed sender,
        address indexed tokenAddress,
        uint256 txId,
        uint256 amount,
        uint256 timestamp,
        bytes data
    );
    event TokenTransferred(address indexed receiver, address indexed tokenAddress, uint256 indexed amount);

    // ----- additive events -----
    event EndowmentUpdated(address indexed previousEndowment, address indexed newEndowment);
    event FilForwarderUpdated(address indexed previousFilForwarder, address indexed newFilForwarder);
    event TokenStatusUpdated(address indexed tokenAddress, bool status);
    event FilForwarded(bytes destination, uint256 amount);

    /// @notice Where `transferToEndowment` sends funds; zero until the owner sets it.
    address public endowment;
    /// @notice The FilForwarder used by `transferToOldAddress`; zero until the owner sets it.
    address public filForwarder;
    /// @notice Allow-list of ERC-20 tokens accepted by `receiveToken`.
    mapping(address => bool) public tokenStatus;
    /// @dev The txId the next payment gets. Starts at 1 (see the gas note above).
    uint256 private _nextTxId = 1;

    constructor(address initialOwner) Ownable(initialOwner) {}

    // =========================================================================
    // Payments
    // =========================================================================

    /// @notice Pays `_amount` of the allow-listed `_token`; the caller must have approved this contract.
    function receiveToken(uint256 _amount, address _token) external nonReentrant {
        if (!tokenStatus[_token]) revert TOKEN_NOT_SUPPORTED();
        if (_amount == 0) revert INVALID_AMOUNT();
        IERC20 token = IERC20(_token);
        if (token.balanceOf(msg.sender) < _amount) revert INSUFFICIENT_USER_BALANCE();
        if (token.allowance(msg.sender, address(this)) < _amount) revert TOKEN_APPROVAL_FAILED();

        uint256 before = token.balanceOf(address(this));
        if (!token.trySafeTransferFrom(msg.sender, address(this), _amount)) revert TOKEN_PAYMENT_FAILED();
        uint256 afterwards = token.balanceOf(address(this));
        // Credit only what arrived: a token that takes a fee or lies about the transfer is refused.
        if (afterwards < before || afterwards - before != _amount) revert TOKEN_PAYMENT_FAILED();

        _recordPayment(_token, _amount, "");
    }

    /// @notice A plain native-coin payment (the SDK's native path: value, no calldata).
    receive() external payable {
        if (msg.value == 0) revert INVALID_AMOUNT();
        _recordPayment(address(0), msg.value, "");
    }

    /// @notice A native payment with a memo in the calldata; without value, an unknown call reverts.
    fallback() external payable {
        if (msg.value == 0) revert FUNCTION_NOT_FOUND(bytes4(msg.data));
        _recordPayment(address(0), msg.value, msg.data);
    }

    function _recordPayment(address token, uint256 amount, bytes memory data) private {
        uint256 txId = _nextTxId;
        _nextTxId = txId + 1;
        emit ReceivedPayment(msg.sender, token, txId, amount, block.timestamp, data);
    }

    // =========================================================================
    // Reads
    // =========================================================================

    /// @notice Whether `_token` is accepted by `receiveToken` (same as `tokenStatus`).
    function getTokenStatus(address _token) external view returns (bool) {
        return tokenStatus[_token];
    }

    /// @notice The native coin held by this contract.
    function getNativeBalance() external view returns (uint256) {
        return address(this).balance;
    }

    /// @notice The amount of `_token` held by this contract.
    function getERC20Balance(address _token) external view returns (uint256) {
        return IERC20(_token).balanceOf(address(this));
    }

    /// @notice The txId of the latest payment; 0 before the first one (additive).
    function paymentCount() external view returns (uint256) {
        return _nextTxId - 1;
    }

    // =========================================================================
    // Owner functions
    // =========================================================================

    function setEndowment(address _endowmentAddress) external onlyOwner {
        if (_endowmentAddress == address(0)) revert INVALID_ZERO_ADDRESS();
        emit EndowmentUpdated(endowment, _endowmentAddress);
        endowment = _endowmentAddress;
    }

    function setFilForwarder(address _filForwarder) external onlyOwner {
        if (_filForwarder == address(0)) revert INVALID_ZERO_ADDRESS();
        emit FilForwarderUpdated(filForwarder, _filForwarder);
        filForwarder = _filForwarder;
    }

    /// @notice Adds (`true`) or removes (`false`) `_tokenAddress` from the allow-list.
    function updateERC20Token(address _tokenAddress, bool _status) external onlyOwner {
        if (_tokenAddress == address(0)) revert INVALID_ZERO_ADDRESS();
        tokenStatus[_tokenAddress] = _status;
        emit TokenStatusUpdated(_tokenAddress, _status);
    }

    /// @notice Sends `_amount` of `_token` (address(0) for the native coin) to the endowment.
    function transferToEndowment(address _token, uint256 _amount) external onlyOwner nonReentrant {
        address to = endowment;
        if (to == address(0)) revert INVALID_ZERO_ADDRESS();
        if (_amount == 0) revert INVALID_AMOUNT();
        if (_token == address(0)) {
            if (address(this).balance < _amount) revert INSUFFICIENT_CONTRACT_BALANCE();
            (bool sent,) = to.call{value: _amount}("");
            if (!sent) revert ENDOWMENT_TRANSFER_FAILED();
        } else {
            IERC20 token = IERC20(_token);
            if (token.balanceOf(address(this)) < _amount) revert INSUFFICIENT_CONTRACT_BALANCE();
            if (!token.trySafeTransfer(to, _amount)) revert ENDOWMENT_TRANSFER_FAILED();
        }
        emit TokenTransferred(to, _token, _amount);
    }

    /// @notice Sends `_amount` of the native coin to the Filecoin address `_destination` (byte form).
    function transferToOldAddress(bytes calldata _destination, uint256 _amount) external onlyOwner nonReentrant {
        address forwarder = filForwarder;
        if (forwarder == address(0) || _destination.length == 0) revert INVALID_ZERO_ADDRESS();
        if (_amount == 0) revert INVALID_AMOUNT();
        if (address(this).balance < _amount) revert INSUFFICIENT_CONTRACT_BALANCE();
        // A forwarder address without code would accept the value and forward nothing.
        if (forwarder.code.length == 0) revert ENDOWMENT_TRANSFER_FAILED();
        (bool sent,) = forwarder.call{value: _amount}(abi.encodeCall(IFilForwarder.forward, (_destination)));
        if (!sent) revert ENDOWMENT_TRANSFER_FAILED();
        emit TokenTransferred(forwarder, address(0), _amount);
        emit FilForwarded(_destination, _amount);
    }

    /// @dev Ownable routes `renounceOwnership` here with the zero address (the constructor and
    /// `transferOwnership` reject zero earlier, with OwnableInvalidOwner). Refusing it keeps
    /// `renounceOwnership`'s ABI entry as it was while disabling it: an ownerless contract strands its funds.
    function _transferOwnership(address newOwner) internal override {
        if (newOwner == address(0)) revert RENOUNCE_DISABLED();
        super._transferOwnership(newOwner);
    }
}
