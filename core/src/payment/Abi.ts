/**
 * The ABIs payments speak: the payment contract's and the stablecoins', in human-readable form.
 *
 * Written out rather than imported from `contracts/abi` so the library's import graph carries no
 * contract bytecode; `core/test/payment/Abi.test.ts` checks every entry against the Hardhat build
 * and that every custom error the contract and the local stablecoin can revert with is named here.
 *
 * @since 0.1.0
 */
import { parseAbi } from "viem"

/** The payment contract: the provider's deployed interface, plus the additive entries. */
export const paymentAbi = parseAbi([
  "function receiveToken(uint256 _amount, address _token)",
  "function getTokenStatus(address _token) view returns (bool)",
  "function tokenStatus(address) view returns (bool)",
  "function getNativeBalance() view returns (uint256)",
  "function getERC20Balance(address _token) view returns (uint256)",
  "function paymentCount() view returns (uint256)",
  "function owner() view returns (address)",
  "function updateERC20Token(address _tokenAddress, bool _status)",
  "function renounceOwnership()",
  "event ReceivedPayment(address indexed sender, address indexed tokenAddress, uint256 txId, uint256 amount, uint256 timestamp, bytes data)",
  "error ENDOWMENT_TRANSFER_FAILED()",
  "error INSUFFICIENT_CONTRACT_BALANCE()",
  "error INSUFFICIENT_USER_BALANCE()",
  "error INVALID_ZERO_ADDRESS()",
  "error TOKEN_APPROVAL_FAILED()",
  "error TOKEN_NOT_SUPPORTED()",
  "error TOKEN_PAYMENT_FAILED()",
  "error INVALID_AMOUNT()",
  "error FUNCTION_NOT_FOUND(bytes4 selector)",
  "error RENOUNCE_DISABLED()",
  "error ReentrancyGuardReentrantCall()",
  "error OwnableInvalidOwner(address owner)",
  "error OwnableUnauthorizedAccount(address account)"
])

/** OpenZeppelin 5's ERC-20 errors, so a token's own revert is named too. */
export const tokenAbi = parseAbi([
  "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
  "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
  "error ERC20InvalidApprover(address approver)",
  "error ERC20InvalidReceiver(address receiver)",
  "error ERC20InvalidSender(address sender)",
  "error ERC20InvalidSpender(address spender)"
])
