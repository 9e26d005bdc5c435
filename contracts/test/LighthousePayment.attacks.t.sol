// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {LighthousePayment} from "../LighthousePayment.sol";
import {FeeOnTransferToken} from "../mocks/FeeOnTransferToken.sol";
import {ReturnsFalseToken} from "../mocks/ReturnsFalseToken.sol";
import {RevertingToken} from "../mocks/RevertingToken.sol";
import {ReentrantToken} from "../mocks/ReentrantToken.sol";
import {RejectingEndowment} from "../mocks/RejectingEndowment.sol";
import {ReentrantEndowment} from "../mocks/ReentrantEndowment.sol";
import {PaymentTestBase} from "./PaymentTestBase.t.sol";

/// @notice Hostile tokens and endowments: nothing is over-credited, double-counted or lost.
contract LighthousePaymentAttackTest is PaymentTestBase {
    function _list(address token) private {
        vm.prank(owner);
        payment.updateERC20Token(token, true);
    }

    // ----- fee-on-transfer -----

    function test_feeOnTransferToken_isRefusedAndNothingMoves() public {
        FeeOnTransferToken fot = new FeeOnTransferToken();
        _list(address(fot));
        fot.mint(payer, 1000);
        vm.startPrank(payer);
        fot.approve(address(payment), 1000);
        vm.expectRevert(LighthousePayment.TOKEN_PAYMENT_FAILED.selector);
        payment.receiveToken(1000, address(fot));
        vm.stopPrank();
        assertEq(fot.balanceOf(payer), 1000);
        assertEq(fot.balanceOf(address(payment)), 0);
        assertEq(payment.paymentCount(), 0);
    }

    function testFuzz_feeOnTransferToken_isAlwaysRefused(uint128 amount) public {
        vm.assume(amount > 0);
        FeeOnTransferToken fot = new FeeOnTransferToken();
        _list(address(fot));
        fot.mint(payer, amount);
        vm.startPrank(payer);
        fot.approve(address(payment), amount);
        vm.expectRevert(LighthousePayment.TOKEN_PAYMENT_FAILED.selector);
        payment.receiveToken(amount, address(fot));
        vm.stopPrank();
    }

    // ----- false-returning and reverting tokens -----

    function test_returnsFalseToken_paymentFails() public {
        ReturnsFalseToken rf = new ReturnsFalseToken();
        _list(address(rf));
        rf.mint(payer, 100);
        vm.startPrank(payer);
        rf.approve(address(payment), 100);
        vm.expectRevert(LighthousePayment.TOKEN_PAYMENT_FAILED.selector);
        payment.receiveToken(100, address(rf));
        vm.stopPrank();
        assertEq(payment.paymentCount(), 0);
    }

    function test_returnsFalseToken_sweepFails() public {
        ReturnsFalseToken rf = new ReturnsFalseToken();
        rf.mint(address(payment), 100);
        vm.startPrank(owner);
        payment.setEndowment(endowment);
        vm.expectRevert(LighthousePayment.ENDOWMENT_TRANSFER_FAILED.selector);
        payment.transferToEndowment(address(rf), 100);
        vm.stopPrank();
        assertEq(rf.balanceOf(address(payment)), 100);
    }

    function test_revertingToken_paymentFailsWithTheContractsError() public {
        RevertingToken rv = new RevertingToken();
        _list(address(rv));
        rv.mint(payer, 100);
        vm.startPrank(payer);
        rv.approve(address(payment), 100);
        vm.expectRevert(LighthousePayment.TOKEN_PAYMENT_FAILED.selector);
        payment.receiveToken(100, address(rv));
        vm.stopPrank();
    }

    function test_revertingToken_sweepFails() public {
        RevertingToken rv = new RevertingToken();
        rv.mint(address(payment), 100);
        vm.startPrank(owner);
        payment.setEndowment(endowment);
        vm.expectRevert(LighthousePayment.ENDOWMENT_TRANSFER_FAILED.selector);
        payment.transferToEndowment(address(rv), 100);
        vm.stopPrank();
    }

    // ----- reentrancy -----

    function test_reentrantToken_cannotReenterReceiveToken() public {
        ReentrantToken rt = new ReentrantToken();
        _list(address(rt));
        rt.mint(payer, 100);
        rt.mint(address(rt), 100);
        // The token itself tries to pay from inside the payer's transferFrom.
        vm.prank(address(rt));
        rt.approve(address(payment), 100);
        rt.arm(address(payment), abi.encodeCall(LighthousePayment.receiveToken, (100, address(rt))));

        vm.startPrank(payer);
        rt.approve(address(payment), 100);
        payment.receiveToken(100, address(rt));
        vm.stopPrank();

        assertTrue(rt.reentered());
        assertFalse(rt.lastCallSucceeded());
        assertEq(rt.lastReturnData(), abi.encodeWithSelector(ReentrancyGuard.ReentrancyGuardReentrantCall.selector));
        // Exactly the outer payment went through.
        assertEq(payment.paymentCount(), 1);
        assertEq(rt.balanceOf(address(payment)), 100);
        assertEq(rt.balanceOf(address(rt)), 100);
    }

    function test_reentrantToken_cannotSweepDuringASweep() public {
        ReentrantToken rt = new ReentrantToken();
        rt.mint(address(payment), 100);
        vm.prank(owner);
        payment.setEndowment(endowment);
        rt.arm(address(payment), abi.encodeCall(LighthousePayment.transferToEndowment, (address(0), 1)));
        _payNative(payer, 1 ether);

        vm.prank(owner);
        payment.transferToEndowment(address(rt), 100);

        assertTrue(rt.reentered());
        assertFalse(rt.lastCallSucceeded());
        // A token is never the owner: the inner sweep is refused before the guard is even reached.
        assertEq(
            rt.lastReturnData(), abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, address(rt))
        );
        assertEq(endowment.balance, 0);
        assertEq(rt.balanceOf(endowment), 100);
    }

    function test_reentrantEndowmentOwner_isStoppedByTheGuard() public {
        // A contract that is both owner and endowment re-enters the sweep while receiving it.
        ReentrantEndowment multisig = new ReentrantEndowment();
        vm.startPrank(owner);
        payment.setEndowment(address(multisig));
        payment.transferOwnership(address(multisig));
        vm.stopPrank();
        _payNative(payer, 3 ether);
        multisig.arm(address(payment), abi.encodeCall(LighthousePayment.transferToEndowment, (address(0), 1 ether)));

        multisig.execute(address(payment), abi.encodeCall(LighthousePayment.transferToEndowment, (address(0), 1 ether)));

        assertTrue(multisig.reentered());
        assertFalse(multisig.lastCallSucceeded());
        assertEq(
            multisig.lastReturnData(), abi.encodeWithSelector(ReentrancyGuard.ReentrancyGuardReentrantCall.selector)
        );
        assertEq(address(multisig).balance, 1 ether);
        assertEq(payment.getNativeBalance(), 2 ether);
    }

    function test_reentrantEndowmentOwner_cannotForwardDuringASweep() public {
        ReentrantEndowment multisig = new ReentrantEndowment();
        vm.startPrank(owner);
        payment.setEndowment(address(multisig));
        payment.setFilForwarder(makeAddr("forwarder"));
        payment.transferOwnership(address(multisig));
        vm.stopPrank();
        _payNative(payer, 2 ether);
        multisig.arm(address(payment), abi.encodeCall(LighthousePayment.transferToOldAddress, (hex"00c10d", 1 ether)));

        multisig.execute(address(payment), abi.encodeCall(LighthousePayment.transferToEndowment, (address(0), 1 ether)));

        assertFalse(multisig.lastCallSucceeded());
        assertEq(
            multisig.lastReturnData(), abi.encodeWithSelector(ReentrancyGuard.ReentrancyGuardReentrantCall.selector)
        );
        assertEq(payment.getNativeBalance(), 1 ether);
    }

    // ----- hostile endowment -----

    function test_rejectingEndowment_sweepFailsAndFundsStay() public {
        RejectingEndowment rejecting = new RejectingEndowment();
        _payNative(payer, 1 ether);
        vm.startPrank(owner);
        payment.setEndowment(address(rejecting));
        vm.expectRevert(LighthousePayment.ENDOWMENT_TRANSFER_FAILED.selector);
        payment.transferToEndowment(address(0), 1 ether);
        vm.stopPrank();
        assertEq(payment.getNativeBalance(), 1 ether);
    }

    function test_rejectingEndowment_stillReceivesTokens() public {
        RejectingEndowment rejecting = new RejectingEndowment();
        _payToken(payer, usdc, ONE_MIB_USDC);
        vm.startPrank(owner);
        payment.setEndowment(address(rejecting));
        payment.transferToEndowment(address(usdc), ONE_MIB_USDC);
        vm.stopPrank();
        assertEq(usdc.balanceOf(address(rejecting)), ONE_MIB_USDC);
    }

    // ----- tokens that are not tokens -----

    function test_listedAddressWithoutCode_paymentReverts() public {
        address eoa = makeAddr("not-a-token");
        _list(eoa);
        vm.prank(payer);
        vm.expectRevert();
        payment.receiveToken(1, eoa);
        assertEq(payment.paymentCount(), 0);
    }
}
