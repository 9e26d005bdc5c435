// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {LighthousePayment} from "../LighthousePayment.sol";
import {MockStablecoin} from "../mocks/MockStablecoin.sol";

/// @notice Shared fixture of the payment-contract tests: the contract with an owner, the two
/// allow-listed stablecoins of the provider's networks (6-decimal "USDC", 18-decimal "DAI"), a payer
/// and a stranger, plus the event declarations `vm.expectEmit` compares against.
abstract contract PaymentTestBase is Test {
    // Amounts from the provider's price formula ($4/GiB, 1 MiB minimum): 1 MiB and 1 GiB.
    uint256 internal constant ONE_MIB_USDC = 3906;
    uint256 internal constant ONE_GIB_USDC = 4_000_000;
    uint256 internal constant ONE_MIB_DAI = 3_906_250_000_000_000;

    LighthousePayment internal payment;
    MockStablecoin internal usdc;
    MockStablecoin internal dai;

    address internal owner = makeAddr("owner");
    address internal payer = makeAddr("payer");
    address internal stranger = makeAddr("stranger");
    address internal endowment = makeAddr("endowment");

    event ReceivedPayment(
        address indexed sender,
        address indexed tokenAddress,
        uint256 txId,
        uint256 amount,
        uint256 timestamp,
        bytes data
    );
    event TokenTransferred(address indexed receiver, address indexed tokenAddress, uint256 indexed amount);
    event EndowmentUpdated(address indexed previousEndowment, address indexed newEndowment);
    event FilForwarderUpdated(address indexed previousFilForwarder, address indexed newFilForwarder);
    event TokenStatusUpdated(address indexed tokenAddress, bool status);
    event FilForwarded(bytes destination, uint256 amount);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    function setUp() public virtual {
        payment = new LighthousePayment(owner);
        usdc = new MockStablecoin("USD Coin", "USDC", 6);
        dai = new MockStablecoin("Dai Stablecoin", "DAI", 18);
        vm.startPrank(owner);
        payment.updateERC20Token(address(usdc), true);
        payment.updateERC20Token(address(dai), true);
        vm.stopPrank();
    }

    /// @dev Mints `amount` to `who`, approves exactly `amount` (as the SDK does) and pays it.
    function _payToken(address who, MockStablecoin token, uint256 amount) internal {
        token.mint(who, amount);
        vm.startPrank(who);
        token.approve(address(payment), amount);
        payment.receiveToken(amount, address(token));
        vm.stopPrank();
    }

    /// @dev Sends `amount` of the native coin as a plain transfer (the SDK's native path).
    function _payNative(address who, uint256 amount) internal {
        vm.deal(who, who.balance + amount);
        vm.prank(who);
        (bool ok,) = address(payment).call{value: amount}("");
        assertTrue(ok, "native payment failed");
    }
}
