// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "./utils/Vm.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {LighthousePayment} from "../LighthousePayment.sol";
import {MockStablecoin} from "../mocks/MockStablecoin.sol";
import {NoReturnToken} from "../mocks/NoReturnToken.sol";
import {GasHungryEndowment} from "../mocks/GasHungryEndowment.sol";
import {MockFilForwarder} from "../mocks/MockFilForwarder.sol";
import {PaymentTestBase} from "./PaymentTestBase.t.sol";

/// @notice Unit tests: every function, every revert and every event field of LighthousePayment.
contract LighthousePaymentTest is PaymentTestBase {
    // =========================================================================
    // ABI compatibility with the provider's contract (reference §2.1)
    // =========================================================================

    function test_functionSelectorsMatchTheProvider() public view {
        assertEq(payment.receiveToken.selector, bytes4(0x7a43c086));
        assertEq(payment.getTokenStatus.selector, bytes4(0xa3ff31b5));
        assertEq(payment.tokenStatus.selector, bytes4(0x0acac942));
        assertEq(payment.getNativeBalance.selector, bytes4(0x88a9d554));
        assertEq(payment.getERC20Balance.selector, bytes4(0xb588d225));
        assertEq(payment.endowment.selector, bytes4(0x746f5acd));
        assertEq(payment.filForwarder.selector, bytes4(0xbcd6b9e5));
        assertEq(payment.setEndowment.selector, bytes4(0x5edd2fa4));
        assertEq(payment.setFilForwarder.selector, bytes4(0x60ba1c48));
        assertEq(payment.updateERC20Token.selector, bytes4(0x17c9bcff));
        assertEq(payment.transferToEndowment.selector, bytes4(0x41a742a6));
        assertEq(payment.transferToOldAddress.selector, bytes4(0x21744578));
        assertEq(payment.owner.selector, bytes4(0x8da5cb5b));
        assertEq(payment.transferOwnership.selector, bytes4(0xf2fde38b));
        assertEq(payment.renounceOwnership.selector, bytes4(0x715018a6));
    }

    function test_errorSelectorsMatchTheProvider() public pure {
        assertEq(LighthousePayment.ENDOWMENT_TRANSFER_FAILED.selector, bytes4(0x245b4e42));
        assertEq(LighthousePayment.INSUFFICIENT_CONTRACT_BALANCE.selector, bytes4(0x84a00560));
        assertEq(LighthousePayment.INSUFFICIENT_USER_BALANCE.selector, bytes4(0x3fc33383));
        assertEq(LighthousePayment.INVALID_ZERO_ADDRESS.selector, bytes4(0x4aad8cc4));
        assertEq(LighthousePayment.TOKEN_APPROVAL_FAILED.selector, bytes4(0xcc9bcb27));
        assertEq(LighthousePayment.TOKEN_NOT_SUPPORTED.selector, bytes4(0x42cee4d8));
        assertEq(LighthousePayment.TOKEN_PAYMENT_FAILED.selector, bytes4(0x55a89c0b));
        assertEq(Ownable.OwnableInvalidOwner.selector, bytes4(0x1e4fbdf7));
        assertEq(Ownable.OwnableUnauthorizedAccount.selector, bytes4(0x118cdaa7));
    }

    function test_eventTopicsMatchTheProvider() public pure {
        assertEq(
            LighthousePayment.ReceivedPayment.selector,
            bytes32(0x9d17de3baa7e2f1c1dd5148600a5daa3df8d34b264dda2d2ce773ac4b6663e49)
        );
        assertEq(
            LighthousePayment.TokenTransferred.selector,
            bytes32(0x9c8515990fd8c61431c4ac8db9b81475f90c292a1dda77731e56c22e64fc7643)
        );
        assertEq(
            Ownable.OwnershipTransferred.selector,
            bytes32(0x8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0)
        );
    }

    // =========================================================================
    // Constructor and initial state
    // =========================================================================

    function test_constructor_setsOwnerAndEmitsOwnershipTransferred() public {
        vm.expectEmit(true, true, false, false);
        emit OwnershipTransferred(address(0), stranger);
        LighthousePayment fresh = new LighthousePayment(stranger);
        assertEq(fresh.owner(), stranger);
    }

    function test_constructor_rejectsZeroOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableInvalidOwner.selector, address(0)));
        new LighthousePayment(address(0));
    }

    function test_initialState() public {
        LighthousePayment fresh = new LighthousePayment(owner);
        assertEq(fresh.endowment(), address(0));
        assertEq(fresh.filForwarder(), address(0));
        assertEq(fresh.paymentCount(), 0);
        assertEq(fresh.getNativeBalance(), 0);
        assertFalse(fresh.tokenStatus(address(usdc)));
        assertFalse(fresh.getTokenStatus(address(usdc)));
    }

    // =========================================================================
    // receiveToken
    // =========================================================================

    function test_receiveToken_sixDecimals_movesFundsAndConsumesAllowance() public {
        usdc.mint(payer, ONE_GIB_USDC);
        vm.startPrank(payer);
        usdc.approve(address(payment), ONE_MIB_USDC);
        payment.receiveToken(ONE_MIB_USDC, address(usdc));
        vm.stopPrank();

        assertEq(usdc.balanceOf(payer), ONE_GIB_USDC - ONE_MIB_USDC);
        assertEq(usdc.balanceOf(address(payment)), ONE_MIB_USDC);
        assertEq(payment.getERC20Balance(address(usdc)), ONE_MIB_USDC);
        assertEq(usdc.allowance(payer, address(payment)), 0);
        assertEq(payment.paymentCount(), 1);
    }

    function test_receiveToken_eighteenDecimals() public {
        _payToken(payer, dai, ONE_MIB_DAI);
        assertEq(dai.balanceOf(address(payment)), ONE_MIB_DAI);
        assertEq(dai.balanceOf(payer), 0);
    }

    function test_receiveToken_emitsReceivedPaymentWithEveryField() public {
        vm.warp(1_700_000_123);
        usdc.mint(payer, ONE_MIB_USDC);
        vm.prank(payer);
        usdc.approve(address(payment), ONE_MIB_USDC);

        vm.expectEmit(true, true, true, true, address(payment));
        emit ReceivedPayment(payer, address(usdc), 1, ONE_MIB_USDC, 1_700_000_123, "");
        vm.recordLogs();
        vm.prank(payer);
        payment.receiveToken(ONE_MIB_USDC, address(usdc));

        // The raw layout indexers rely on: sender and token in topics 1-2, the rest ABI-encoded in data.
        Vm.Log memory log = _onlyReceivedPayment(vm.getRecordedLogs());
        assertEq(log.topics.length, 3);
        assertEq(log.topics[1], bytes32(uint256(uint160(payer))));
        assertEq(log.topics[2], bytes32(uint256(uint160(address(usdc)))));
        (uint256 txId, uint256 amount, uint256 timestamp, bytes memory data) =
            abi.decode(log.data, (uint256, uint256, uint256, bytes));
        assertEq(txId, 1);
        assertEq(amount, ONE_MIB_USDC);
        assertEq(timestamp, 1_700_000_123);
        assertEq(data.length, 0);
    }

    function test_receiveToken_neverListedToken_reverts() public {
        MockStablecoin other = new MockStablecoin("Other", "OTH", 6);
        other.mint(payer, 10);
        vm.startPrank(payer);
        other.approve(address(payment), 10);
        vm.expectRevert(LighthousePayment.TOKEN_NOT_SUPPORTED.selector);
        payment.receiveToken(10, address(other));
        vm.stopPrank();
    }

    function test_receiveToken_delistedToken_reverts() public {
        vm.prank(owner);
        payment.updateERC20Token(address(usdc), false);
        usdc.mint(payer, 10);
        vm.startPrank(payer);
        usdc.approve(address(payment), 10);
        vm.expectRevert(LighthousePayment.TOKEN_NOT_SUPPORTED.selector);
        payment.receiveToken(10, address(usdc));
        vm.stopPrank();
    }

    function test_receiveToken_nativeAddress_isNotSupported() public {
        vm.prank(payer);
        vm.expectRevert(LighthousePayment.TOKEN_NOT_SUPPORTED.selector);
        payment.receiveToken(1, address(0));
    }

    function test_receiveToken_zeroAmount_reverts() public {
        vm.prank(payer);
        vm.expectRevert(LighthousePayment.INVALID_AMOUNT.selector);
        payment.receiveToken(0, address(usdc));
    }

    function test_receiveToken_insufficientUserBalance_reverts() public {
        usdc.mint(payer, ONE_MIB_USDC - 1);
        vm.startPrank(payer);
        usdc.approve(address(payment), ONE_MIB_USDC);
        vm.expectRevert(LighthousePayment.INSUFFICIENT_USER_BALANCE.selector);
        payment.receiveToken(ONE_MIB_USDC, address(usdc));
        vm.stopPrank();
    }

    function test_receiveToken_noApproval_reverts() public {
        usdc.mint(payer, ONE_MIB_USDC);
        vm.prank(payer);
        vm.expectRevert(LighthousePayment.TOKEN_APPROVAL_FAILED.selector);
        payment.receiveToken(ONE_MIB_USDC, address(usdc));
    }

    function test_receiveToken_approvalOneUnitShort_reverts() public {
        usdc.mint(payer, ONE_MIB_USDC);
        vm.startPrank(payer);
        usdc.approve(address(payment), ONE_MIB_USDC - 1);
        vm.expectRevert(LighthousePayment.TOKEN_APPROVAL_FAILED.selector);
        payment.receiveToken(ONE_MIB_USDC, address(usdc));
        vm.stopPrank();
    }

    function test_receiveToken_noReturnValueToken_works() public {
        NoReturnToken usdt = new NoReturnToken();
        vm.prank(owner);
        payment.updateERC20Token(address(usdt), true);
        usdt.mint(payer, 500);
        vm.startPrank(payer);
        usdt.approve(address(payment), 500);
        payment.receiveToken(500, address(usdt));
        vm.stopPrank();
        assertEq(usdt.balanceOf(address(payment)), 500);
        assertEq(payment.paymentCount(), 1);
    }

    function test_receiveToken_revertedPaymentConsumesNoTxId() public {
        _payToken(payer, usdc, 1);
        usdc.mint(payer, 1);
        vm.prank(payer);
        vm.expectRevert(LighthousePayment.TOKEN_APPROVAL_FAILED.selector);
        payment.receiveToken(1, address(usdc));
        assertEq(payment.paymentCount(), 1);

        vm.prank(payer);
        usdc.approve(address(payment), 1);
        vm.expectEmit(true, true, false, true, address(payment));
        emit ReceivedPayment(payer, address(usdc), 2, 1, block.timestamp, "");
        vm.prank(payer);
        payment.receiveToken(1, address(usdc));
    }

    // =========================================================================
    // Native payments: receive and fallback
    // =========================================================================

    function test_receive_emitsReceivedPaymentWithZeroTokenAddress() public {
        vm.warp(1_800_000_000);
        vm.deal(payer, 1 ether);
        vm.expectEmit(true, true, true, true, address(payment));
        emit ReceivedPayment(payer, address(0), 1, 0.25 ether, 1_800_000_000, "");
        vm.prank(payer);
        (bool ok,) = address(payment).call{value: 0.25 ether}("");
        assertTrue(ok);
        assertEq(payment.getNativeBalance(), 0.25 ether);
        assertEq(address(payment).balance, 0.25 ether);
        assertEq(payer.balance, 0.75 ether);
    }

    function test_receive_zeroValue_reverts() public {
        vm.prank(payer);
        (bool ok, bytes memory err) = address(payment).call("");
        assertFalse(ok);
        assertEq(err, abi.encodeWithSelector(LighthousePayment.INVALID_AMOUNT.selector));
        assertEq(payment.paymentCount(), 0);
    }

    function test_fallback_withValue_recordsCalldataAsMemo() public {
        bytes memory memo = abi.encodePacked("invoice-42");
        vm.deal(payer, 1 ether);
        vm.expectEmit(true, true, true, true, address(payment));
        emit ReceivedPayment(payer, address(0), 1, 1 ether, block.timestamp, memo);
        vm.prank(payer);
        (bool ok,) = address(payment).call{value: 1 ether}(memo);
        assertTrue(ok);
        assertEq(payment.getNativeBalance(), 1 ether);
    }

    function test_fallback_withoutValue_unknownSelector_reverts() public {
        bytes memory call = abi.encodeWithSignature("doesNotExist(uint256)", 1);
        vm.prank(payer);
        (bool ok, bytes memory err) = address(payment).call(call);
        assertFalse(ok);
        assertEq(
            err, abi.encodeWithSelector(LighthousePayment.FUNCTION_NOT_FOUND.selector, bytes4(keccak256("doesNotExist(uint256)")))
        );
    }

    function test_fallback_mistypedReceiveToken_revertsInsteadOfSucceeding() public {
        // Token first: the order `transferToEndowment` uses, and an easy mistake for `receiveToken`.
        bytes memory call = abi.encodeWithSignature("receiveToken(address,uint256)", address(usdc), 1);
        vm.prank(payer);
        (bool ok,) = address(payment).call(call);
        assertFalse(ok);
        assertEq(payment.paymentCount(), 0);
    }

    function test_fallback_shortCalldataWithoutValue_reverts() public {
        vm.prank(payer);
        (bool ok, bytes memory err) = address(payment).call(hex"abcd");
        assertFalse(ok);
        assertEq(err, abi.encodeWithSelector(LighthousePayment.FUNCTION_NOT_FOUND.selector, bytes4(0xabcd0000)));
    }

    function test_txId_isSharedAcrossNativeAndTokenPayments() public {
        _payToken(payer, usdc, 5);
        _payNative(stranger, 1 ether);
        _payToken(stranger, dai, 7);
        vm.deal(payer, 1 ether);
        vm.expectEmit(true, true, false, true, address(payment));
        emit ReceivedPayment(payer, address(0), 4, 1 ether, block.timestamp, "");
        _payNative(payer, 1 ether);
        assertEq(payment.paymentCount(), 4);
    }

    // =========================================================================
    // Reads
    // =========================================================================

    function test_getTokenStatus_equalsTokenStatus() public {
        MockStablecoin other = new MockStablecoin("Other", "OTH", 6);
        assertEq(payment.getTokenStatus(address(usdc)), payment.tokenStatus(address(usdc)));
        assertTrue(payment.getTokenStatus(address(usdc)));
        assertEq(payment.getTokenStatus(address(other)), payment.tokenStatus(address(other)));
        assertFalse(payment.getTokenStatus(address(other)));
    }

    function test_getERC20Balance_countsDirectTransfers() public {
        _payToken(payer, usdc, 100);
        usdc.mint(stranger, 50);
        vm.prank(stranger);
        usdc.transfer(address(payment), 50);
        assertEq(payment.getERC20Balance(address(usdc)), 150);
        assertEq(payment.getERC20Balance(address(usdc)), usdc.balanceOf(address(payment)));
        // A direct transfer is a donation, not a payment: it gets no txId.
        assertEq(payment.paymentCount(), 1);
    }

    function test_getNativeBalance_tracksTheSumOfPayments() public {
        _payNative(payer, 1 ether);
        _payNative(stranger, 2 ether);
        assertEq(payment.getNativeBalance(), 3 ether);
    }

    // =========================================================================
    // Owner setters
    // =========================================================================

    function test_setEndowment_setsAndEmits() public {
        vm.expectEmit(true, true, false, false, address(payment));
        emit EndowmentUpdated(address(0), endowment);
        vm.prank(owner);
        payment.setEndowment(endowment);
        assertEq(payment.endowment(), endowment);

        vm.expectEmit(true, true, false, false, address(payment));
        emit EndowmentUpdated(endowment, stranger);
        vm.prank(owner);
        payment.setEndowment(stranger);
        assertEq(payment.endowment(), stranger);
    }

    function test_setEndowment_zeroAddress_reverts() public {
        vm.prank(owner);
        vm.expectRevert(LighthousePayment.INVALID_ZERO_ADDRESS.selector);
        payment.setEndowment(address(0));
    }

    function test_setEndowment_nonOwner_reverts() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        payment.setEndowment(endowment);
    }

    function test_setFilForwarder_setsAndEmits() public {
        address forwarder = makeAddr("forwarder");
        vm.expectEmit(true, true, false, false, address(payment));
        emit FilForwarderUpdated(address(0), forwarder);
        vm.prank(owner);
        payment.setFilForwarder(forwarder);
        assertEq(payment.filForwarder(), forwarder);
    }

    function test_setFilForwarder_zeroAddress_reverts() public {
        vm.prank(owner);
        vm.expectRevert(LighthousePayment.INVALID_ZERO_ADDRESS.selector);
        payment.setFilForwarder(address(0));
    }

    function test_setFilForwarder_nonOwner_reverts() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        payment.setFilForwarder(stranger);
    }

    function test_updateERC20Token_togglesAndEmits() public {
        MockStablecoin other = new MockStablecoin("Other", "OTH", 18);
        vm.expectEmit(true, false, false, true, address(payment));
        emit TokenStatusUpdated(address(other), true);
        vm.prank(owner);
        payment.updateERC20Token(address(other), true);
        assertTrue(payment.tokenStatus(address(other)));

        vm.expectEmit(true, false, false, true, address(payment));
        emit TokenStatusUpdated(address(other), false);
        vm.prank(owner);
        payment.updateERC20Token(address(other), false);
        assertFalse(payment.tokenStatus(address(other)));
    }

    function test_updateERC20Token_zeroAddress_reverts() public {
        vm.prank(owner);
        vm.expectRevert(LighthousePayment.INVALID_ZERO_ADDRESS.selector);
        payment.updateERC20Token(address(0), true);
    }

    function test_updateERC20Token_nonOwner_reverts() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        payment.updateERC20Token(address(usdc), false);
    }

    // =========================================================================
    // transferToEndowment
    // =========================================================================

    function test_transferToEndowment_native_movesAndEmitsAllTopics() public {
        _payNative(payer, 3 ether);
        vm.prank(owner);
        payment.setEndowment(endowment);

        vm.expectEmit(true, true, true, true, address(payment));
        emit TokenTransferred(endowment, address(0), 2 ether);
        vm.recordLogs();
        vm.prank(owner);
        payment.transferToEndowment(address(0), 2 ether);

        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, 1);
        assertEq(logs[0].topics.length, 4);
        assertEq(logs[0].topics[0], LighthousePayment.TokenTransferred.selector);
        assertEq(logs[0].topics[1], bytes32(uint256(uint160(endowment))));
        assertEq(logs[0].topics[2], bytes32(0));
        assertEq(logs[0].topics[3], bytes32(uint256(2 ether)));
        assertEq(logs[0].data.length, 0);
        assertEq(endowment.balance, 2 ether);
        assertEq(payment.getNativeBalance(), 1 ether);
    }

    function test_transferToEndowment_erc20_moves() public {
        _payToken(payer, usdc, ONE_GIB_USDC);
        vm.prank(owner);
        payment.setEndowment(endowment);
        vm.expectEmit(true, true, true, true, address(payment));
        emit TokenTransferred(endowment, address(usdc), ONE_GIB_USDC);
        vm.prank(owner);
        payment.transferToEndowment(address(usdc), ONE_GIB_USDC);
        assertEq(usdc.balanceOf(endowment), ONE_GIB_USDC);
        assertEq(payment.getERC20Balance(address(usdc)), 0);
    }

    function test_transferToEndowment_unlistedTokenCanBeSwept() public {
        MockStablecoin stray = new MockStablecoin("Stray", "STR", 18);
        stray.mint(address(payment), 9);
        vm.startPrank(owner);
        payment.setEndowment(endowment);
        payment.transferToEndowment(address(stray), 9);
        vm.stopPrank();
        assertEq(stray.balanceOf(endowment), 9);
    }

    function test_transferToEndowment_insufficientNative_reverts() public {
        _payNative(payer, 1 ether);
        vm.startPrank(owner);
        payment.setEndowment(endowment);
        vm.expectRevert(LighthousePayment.INSUFFICIENT_CONTRACT_BALANCE.selector);
        payment.transferToEndowment(address(0), 1 ether + 1);
        vm.stopPrank();
    }

    function test_transferToEndowment_insufficientToken_reverts() public {
        _payToken(payer, dai, 10);
        vm.startPrank(owner);
        payment.setEndowment(endowment);
        vm.expectRevert(LighthousePayment.INSUFFICIENT_CONTRACT_BALANCE.selector);
        payment.transferToEndowment(address(dai), 11);
        vm.stopPrank();
    }

    function test_transferToEndowment_endowmentUnset_reverts() public {
        _payNative(payer, 1 ether);
        vm.prank(owner);
        vm.expectRevert(LighthousePayment.INVALID_ZERO_ADDRESS.selector);
        payment.transferToEndowment(address(0), 1 ether);
    }

    function test_transferToEndowment_zeroAmount_reverts() public {
        vm.startPrank(owner);
        payment.setEndowment(endowment);
        vm.expectRevert(LighthousePayment.INVALID_AMOUNT.selector);
        payment.transferToEndowment(address(usdc), 0);
        vm.stopPrank();
    }

    function test_transferToEndowment_nonOwner_reverts() public {
        _payNative(payer, 1 ether);
        vm.prank(owner);
        payment.setEndowment(endowment);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        payment.transferToEndowment(address(0), 1 ether);
    }

    function test_transferToEndowment_gasHungryEndowment_receivesEverything() public {
        GasHungryEndowment hungry = new GasHungryEndowment();
        _payNative(payer, 1 ether);
        vm.startPrank(owner);
        payment.setEndowment(address(hungry));
        payment.transferToEndowment(address(0), 1 ether);
        vm.stopPrank();
        assertEq(hungry.received(), 1 ether);
        assertEq(hungry.deposits(), 1);
    }

    // =========================================================================
    // transferToOldAddress
    // =========================================================================

    function test_transferToOldAddress_forwardsExactBytesAndValue() public {
        MockFilForwarder forwarder = new MockFilForwarder();
        bytes memory f01024 = hex"00c10d";
        _payNative(payer, 5 ether);
        vm.prank(owner);
        payment.setFilForwarder(address(forwarder));

        vm.expectEmit(true, true, true, true, address(payment));
        emit TokenTransferred(address(forwarder), address(0), 2 ether);
        vm.expectEmit(true, true, true, true, address(payment));
        emit FilForwarded(f01024, 2 ether);
        vm.prank(owner);
        payment.transferToOldAddress(f01024, 2 ether);

        assertEq(forwarder.lastDestination(), f01024);
        assertEq(forwarder.lastValue(), 2 ether);
        assertEq(address(forwarder).balance, 2 ether);
        assertEq(payment.getNativeBalance(), 3 ether);
    }

    function test_transferToOldAddress_forwarderUnset_reverts() public {
        _payNative(payer, 1 ether);
        vm.prank(owner);
        vm.expectRevert(LighthousePayment.INVALID_ZERO_ADDRESS.selector);
        payment.transferToOldAddress(hex"00c10d", 1 ether);
    }

    function test_transferToOldAddress_emptyDestination_reverts() public {
        _payNative(payer, 1 ether);
        vm.startPrank(owner);
        payment.setFilForwarder(address(new MockFilForwarder()));
        vm.expectRevert(LighthousePayment.INVALID_ZERO_ADDRESS.selector);
        payment.transferToOldAddress("", 1 ether);
        vm.stopPrank();
    }

    function test_transferToOldAddress_zeroAmount_reverts() public {
        vm.startPrank(owner);
        payment.setFilForwarder(address(new MockFilForwarder()));
        vm.expectRevert(LighthousePayment.INVALID_AMOUNT.selector);
        payment.transferToOldAddress(hex"00c10d", 0);
        vm.stopPrank();
    }

    function test_transferToOldAddress_insufficientBalance_reverts() public {
        _payNative(payer, 1 ether);
        vm.startPrank(owner);
        payment.setFilForwarder(address(new MockFilForwarder()));
        vm.expectRevert(LighthousePayment.INSUFFICIENT_CONTRACT_BALANCE.selector);
        payment.transferToOldAddress(hex"00c10d", 1 ether + 1);
        vm.stopPrank();
    }

    function test_transferToOldAddress_forwarderReverts_reverts() public {
        MockFilForwarder forwarder = new MockFilForwarder();
        forwarder.setShouldRevert(true);
        _payNative(payer, 1 ether);
        vm.startPrank(owner);
        payment.setFilForwarder(address(forwarder));
        vm.expectRevert(LighthousePayment.ENDOWMENT_TRANSFER_FAILED.selector);
        payment.transferToOldAddress(hex"00c10d", 1 ether);
        vm.stopPrank();
        assertEq(payment.getNativeBalance(), 1 ether);
    }

    function test_transferToOldAddress_forwarderWithoutCode_reverts() public {
        _payNative(payer, 1 ether);
        vm.startPrank(owner);
        payment.setFilForwarder(makeAddr("not-a-contract"));
        vm.expectRevert(LighthousePayment.ENDOWMENT_TRANSFER_FAILED.selector);
        payment.transferToOldAddress(hex"00c10d", 1 ether);
        vm.stopPrank();
    }

    function test_transferToOldAddress_nonOwner_reverts() public {
        _payNative(payer, 1 ether);
        MockFilForwarder forwarder = new MockFilForwarder();
        vm.prank(owner);
        payment.setFilForwarder(address(forwarder));
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        payment.transferToOldAddress(hex"00c10d", 1 ether);
    }

    // =========================================================================
    // Ownership
    // =========================================================================

    function test_transferOwnership_movesAccessToTheNewOwner() public {
        vm.expectEmit(true, true, false, false, address(payment));
        emit OwnershipTransferred(owner, stranger);
        vm.prank(owner);
        payment.transferOwnership(stranger);
        assertEq(payment.owner(), stranger);

        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, owner));
        payment.setEndowment(endowment);

        vm.prank(stranger);
        payment.setEndowment(endowment);
        assertEq(payment.endowment(), endowment);
    }

    function test_transferOwnership_toZero_reverts() public {
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableInvalidOwner.selector, address(0)));
        payment.transferOwnership(address(0));
    }

    function test_transferOwnership_nonOwner_reverts() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        payment.transferOwnership(stranger);
    }

    function test_renounceOwnership_isDisabledForTheOwner() public {
        vm.prank(owner);
        vm.expectRevert(LighthousePayment.RENOUNCE_DISABLED.selector);
        payment.renounceOwnership();
        assertEq(payment.owner(), owner);
    }

    function test_renounceOwnership_nonOwner_reverts() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        payment.renounceOwnership();
    }

    // =========================================================================

    function _onlyReceivedPayment(Vm.Log[] memory logs) private view returns (Vm.Log memory found) {
        uint256 count;
        for (uint256 i = 0; i < logs.length; i++) {
            if (logs[i].emitter == address(payment) && logs[i].topics[0] == LighthousePayment.ReceivedPayment.selector) {
                found = logs[i];
                count++;
            }
        }
        assertEq(count, 1, "exactly one ReceivedPayment");
    }
}
