// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "./utils/Vm.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {LighthousePayment} from "../LighthousePayment.sol";
import {MockStablecoin} from "../mocks/MockStablecoin.sol";
import {MockFilForwarder} from "../mocks/MockFilForwarder.sol";
import {PaymentTestBase} from "./PaymentTestBase.t.sol";

/// @notice Fuzz tests over amounts, balances, allowances, callers, values and calldata.
contract LighthousePaymentFuzzTest is PaymentTestBase {
    /// receiveToken succeeds iff the token is listed, the amount is non-zero and covered by both the
    /// payer's balance and allowance; on success exactly `amount` moves and one txId is used.
    function testFuzz_receiveToken_succeedsExactlyWhenAllowed(
        uint256 amount,
        uint256 balance,
        uint256 allowance,
        bool listed,
        bool sixDecimals
    ) public {
        MockStablecoin token = sixDecimals ? usdc : dai;
        if (!listed) {
            vm.prank(owner);
            payment.updateERC20Token(address(token), false);
        }
        token.mint(payer, balance);
        vm.prank(payer);
        token.approve(address(payment), allowance);

        bytes4 expected;
        if (!listed) expected = LighthousePayment.TOKEN_NOT_SUPPORTED.selector;
        else if (amount == 0) expected = LighthousePayment.INVALID_AMOUNT.selector;
        else if (balance < amount) expected = LighthousePayment.INSUFFICIENT_USER_BALANCE.selector;
        else if (allowance < amount) expected = LighthousePayment.TOKEN_APPROVAL_FAILED.selector;

        if (expected != bytes4(0)) vm.expectRevert(expected);
        vm.prank(payer);
        payment.receiveToken(amount, address(token));

        if (expected == bytes4(0)) {
            assertEq(token.balanceOf(address(payment)), amount);
            assertEq(token.balanceOf(payer), balance - amount);
            assertEq(payment.paymentCount(), 1);
        } else {
            assertEq(token.balanceOf(address(payment)), 0);
            assertEq(token.balanceOf(payer), balance);
            assertEq(payment.paymentCount(), 0);
        }
    }

    /// Every owner-only function reverts with OwnableUnauthorizedAccount(caller) for any other caller.
    function testFuzz_ownerFunctions_rejectEveryOtherCaller(address caller, address someAddress, uint256 amount)
        public
    {
        vm.assume(caller != owner);
        bytes memory unauthorized = abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, caller);
        _payNative(payer, 1 ether);

        vm.startPrank(caller);
        vm.expectRevert(unauthorized);
        payment.setEndowment(someAddress);
        vm.expectRevert(unauthorized);
        payment.setFilForwarder(someAddress);
        vm.expectRevert(unauthorized);
        payment.updateERC20Token(someAddress, true);
        vm.expectRevert(unauthorized);
        payment.transferToEndowment(address(0), amount);
        vm.expectRevert(unauthorized);
        payment.transferToOldAddress(hex"00c10d", amount);
        vm.expectRevert(unauthorized);
        payment.transferOwnership(someAddress);
        vm.expectRevert(unauthorized);
        payment.renounceOwnership();
        vm.stopPrank();

        assertEq(payment.owner(), owner);
        assertEq(payment.getNativeBalance(), 1 ether);
    }

    /// A native payment (plain or with a memo) echoes sender, value and calldata, and the balance
    /// rises by exactly the value.
    function testFuzz_nativePayment_echoesInputs(address sender, uint96 value, bytes calldata memo) public {
        vm.assume(value > 0 && sender.code.length == 0 && uint160(sender) > 0x100);
        if (memo.length >= 4) vm.assume(!_isContractSelector(bytes4(memo)));
        vm.deal(sender, value);

        vm.expectEmit(true, true, true, true, address(payment));
        emit ReceivedPayment(sender, address(0), 1, value, block.timestamp, memo);
        vm.prank(sender);
        (bool ok,) = address(payment).call{value: value}(memo);
        assertTrue(ok);
        assertEq(payment.getNativeBalance(), value);
    }

    /// Without value, any calldata that is not a function of the contract reverts and records nothing.
    function testFuzz_unknownCallWithoutValue_reverts(bytes calldata data) public {
        vm.assume(data.length > 0);
        if (data.length >= 4) vm.assume(!_isContractSelector(bytes4(data)));
        (bool ok, bytes memory err) = address(payment).call(data);
        assertFalse(ok);
        assertEq(err, abi.encodeWithSelector(LighthousePayment.FUNCTION_NOT_FOUND.selector, bytes4(data)));
        assertEq(payment.paymentCount(), 0);
    }

    /// Sweeps around the balance boundary: up to the balance succeeds and moves exactly `amount`.
    function testFuzz_transferToEndowment_aroundTheBalance(uint128 held, uint128 amount, bool native) public {
        vm.assume(held > 0 && amount > 0);
        if (native) _payNative(payer, held);
        else _payToken(payer, dai, held);
        vm.startPrank(owner);
        payment.setEndowment(endowment);
        address token = native ? address(0) : address(dai);
        if (amount > held) vm.expectRevert(LighthousePayment.INSUFFICIENT_CONTRACT_BALANCE.selector);
        payment.transferToEndowment(token, amount);
        vm.stopPrank();

        uint256 moved = amount > held ? 0 : amount;
        if (native) {
            assertEq(endowment.balance, moved);
            assertEq(payment.getNativeBalance(), held - moved);
        } else {
            assertEq(dai.balanceOf(endowment), moved);
            assertEq(payment.getERC20Balance(address(dai)), held - moved);
        }
    }

    /// The forwarder receives exactly the destination bytes and value, for any length 1..100.
    function testFuzz_transferToOldAddress_passesDestinationThrough(bytes calldata destination, uint96 amount) public {
        vm.assume(destination.length > 0 && destination.length <= 100 && amount > 0);
        MockFilForwarder forwarder = new MockFilForwarder();
        _payNative(payer, amount);
        vm.startPrank(owner);
        payment.setFilForwarder(address(forwarder));
        payment.transferToOldAddress(destination, amount);
        vm.stopPrank();
        assertEq(forwarder.lastDestination(), destination);
        assertEq(forwarder.lastValue(), amount);
        assertEq(payment.getNativeBalance(), 0);
    }

    /// A run of mixed payments gets consecutive txIds 1..n, in order.
    function testFuzz_txIds_areConsecutive(uint8 count, uint256 seed) public {
        uint256 n = bound(count, 1, 24);
        vm.recordLogs();
        for (uint256 i = 0; i < n; i++) {
            uint256 kind = uint256(keccak256(abi.encode(seed, i))) % 3;
            if (kind == 0) _payNative(payer, i + 1);
            else if (kind == 1) _payToken(payer, usdc, i + 1);
            else _payToken(stranger, dai, i + 1);
        }
        Vm.Log[] memory logs = vm.getRecordedLogs();
        uint256 expected = 1;
        for (uint256 i = 0; i < logs.length; i++) {
            if (logs[i].emitter != address(payment) || logs[i].topics[0] != LighthousePayment.ReceivedPayment.selector) {
                continue;
            }
            (uint256 txId,,,) = abi.decode(logs[i].data, (uint256, uint256, uint256, bytes));
            assertEq(txId, expected);
            expected++;
        }
        assertEq(expected - 1, n);
        assertEq(payment.paymentCount(), n);
    }

    function _isContractSelector(bytes4 selector) private view returns (bool) {
        return selector == payment.receiveToken.selector || selector == payment.getTokenStatus.selector
            || selector == payment.tokenStatus.selector || selector == payment.getNativeBalance.selector
            || selector == payment.getERC20Balance.selector || selector == payment.endowment.selector
            || selector == payment.filForwarder.selector || selector == payment.setEndowment.selector
            || selector == payment.setFilForwarder.selector || selector == payment.updateERC20Token.selector
            || selector == payment.transferToEndowment.selector || selector == payment.transferToOldAddress.selector
            || selector == payment.owner.selector || selector == payment.transferOwnership.selector
            || selector == payment.renounceOwnership.selector || selector == payment.paymentCount.selector;
    }
}
