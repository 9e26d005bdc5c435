// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {Vm} from "./utils/Vm.sol";
import {LighthousePayment} from "../LighthousePayment.sol";
import {MockStablecoin} from "../mocks/MockStablecoin.sol";
import {MockFilForwarder} from "../mocks/MockFilForwarder.sol";

/// @notice Drives the payment contract with random payments, donations, sweeps and attempts by
/// strangers, keeping ghost totals of what went in and out. The invariant test targets only this.
contract PaymentHandler is Test {
    LighthousePayment public immutable payment;
    MockStablecoin public immutable usdc;
    MockStablecoin public immutable dai;
    MockStablecoin public immutable unlisted;
    MockFilForwarder public immutable forwarder;
    address public immutable owner;
    address public immutable endowment;

    address[] internal actors;

    // Ghost ledger, per token (address(0) is the native coin).
    mapping(address => uint256) public paidIn;
    mapping(address => uint256) public donated;
    mapping(address => uint256) public sweptOut;
    uint256 public forwardedOut;
    uint256 public payments;
    uint256 public lastTxId;
    bool public txIdNotIncreasing;
    uint256 public strangerSuccesses;
    uint256 public unlistedAccepted;

    constructor(LighthousePayment payment_, MockStablecoin usdc_, MockStablecoin dai_, address owner_, address endowment_) {
        payment = payment_;
        usdc = usdc_;
        dai = dai_;
        owner = owner_;
        endowment = endowment_;
        unlisted = new MockStablecoin("Unlisted", "UNL", 6);
        forwarder = new MockFilForwarder();
        for (uint256 i = 0; i < 4; i++) {
            actors.push(makeAddr(string.concat("actor", vm.toString(i))));
        }
    }

    function payToken(uint256 actorSeed, bool useDai, uint256 amount) external {
        address actor = _actor(actorSeed);
        MockStablecoin token = useDai ? dai : usdc;
        amount = bound(amount, 1, 1e30);
        token.mint(actor, amount);
        vm.prank(actor);
        token.approve(address(payment), amount);
        vm.recordLogs();
        vm.prank(actor);
        payment.receiveToken(amount, address(token));
        _checkTxId();
        paidIn[address(token)] += amount;
    }

    function payNative(uint256 actorSeed, uint256 amount, bytes calldata memo) external {
        address actor = _actor(actorSeed);
        amount = bound(amount, 1, 1e24);
        vm.deal(actor, amount);
        // A memo that starts with a real selector would call that function instead: keep it a memo.
        bytes memory data = memo.length == 0 ? memo : bytes.concat(hex"ff00ff00", memo);
        vm.recordLogs();
        vm.prank(actor);
        (bool ok,) = address(payment).call{value: amount}(data);
        require(ok, "native payment failed");
        _checkTxId();
        paidIn[address(0)] += amount;
    }

    function donate(uint256 actorSeed, bool useDai, uint256 amount) external {
        address actor = _actor(actorSeed);
        MockStablecoin token = useDai ? dai : usdc;
        amount = bound(amount, 1, 1e30);
        token.mint(actor, amount);
        vm.prank(actor);
        token.transfer(address(payment), amount);
        donated[address(token)] += amount;
    }

    function tryUnlisted(uint256 actorSeed, uint256 amount) external {
        address actor = _actor(actorSeed);
        amount = bound(amount, 1, 1e30);
        unlisted.mint(actor, amount);
        vm.prank(actor);
        unlisted.approve(address(payment), amount);
        vm.prank(actor);
        try payment.receiveToken(amount, address(unlisted)) {
            unlistedAccepted += amount;
        } catch {}
    }

    function sweepToken(bool useDai, uint256 amount) external {
        address token = useDai ? address(dai) : address(usdc);
        uint256 held = payment.getERC20Balance(token);
        if (held == 0) return;
        amount = bound(amount, 1, held);
        vm.prank(owner);
        payment.transferToEndowment(token, amount);
        sweptOut[token] += amount;
    }

    function sweepNative(uint256 amount) external {
        uint256 held = payment.getNativeBalance();
        if (held == 0) return;
        amount = bound(amount, 1, held);
        vm.prank(owner);
        payment.transferToEndowment(address(0), amount);
        sweptOut[address(0)] += amount;
    }

    function forwardNative(uint256 amount) external {
        uint256 held = payment.getNativeBalance();
        if (held == 0) return;
        amount = bound(amount, 1, held);
        vm.prank(owner);
        payment.transferToOldAddress(hex"00c10d", amount);
        forwardedOut += amount;
    }

    /// A stranger (any of the actors, never the owner) tries every way of moving money or control.
    function strangerAttempts(uint256 actorSeed, uint256 which, uint256 amount) external {
        address actor = _actor(actorSeed);
        bytes memory call;
        which = which % 6;
        if (which == 0) call = abi.encodeCall(LighthousePayment.transferToEndowment, (address(0), amount));
        else if (which == 1) call = abi.encodeCall(LighthousePayment.transferToEndowment, (address(usdc), amount));
        else if (which == 2) call = abi.encodeCall(LighthousePayment.transferToOldAddress, (hex"00c10d", amount));
        else if (which == 3) call = abi.encodeCall(LighthousePayment.setEndowment, (actor));
        else if (which == 4) call = abi.encodeCall(payment.transferOwnership, (actor));
        else call = abi.encodeCall(LighthousePayment.updateERC20Token, (address(unlisted), true));
        vm.prank(actor);
        (bool ok,) = address(payment).call(call);
        if (ok) strangerSuccesses++;
    }

    function actorCount() external view returns (uint256) {
        return actors.length;
    }

    function _actor(uint256 seed) private view returns (address) {
        return actors[seed % actors.length];
    }

    /// Reads the txId of the one ReceivedPayment just emitted and checks it follows the last one.
    function _checkTxId() private {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        uint256 found;
        for (uint256 i = 0; i < logs.length; i++) {
            if (logs[i].emitter != address(payment) || logs[i].topics[0] != LighthousePayment.ReceivedPayment.selector) {
                continue;
            }
            (uint256 txId,,,) = abi.decode(logs[i].data, (uint256, uint256, uint256, bytes));
            if (txId <= lastTxId) txIdNotIncreasing = true;
            lastTxId = txId;
            found++;
        }
        require(found == 1, "expected exactly one ReceivedPayment");
        payments++;
    }
}

/// @notice Invariants: funds are conserved, only the owner moves money out, txIds strictly increase,
/// unlisted tokens never get in, and the configuration never loses its owner or endowment.
contract LighthousePaymentInvariantTest is Test {
    LighthousePayment internal payment;
    MockStablecoin internal usdc;
    MockStablecoin internal dai;
    PaymentHandler internal handler;
    address internal owner = makeAddr("owner");
    address internal endowment = makeAddr("endowment");

    function setUp() public {
        payment = new LighthousePayment(owner);
        usdc = new MockStablecoin("USD Coin", "USDC", 6);
        dai = new MockStablecoin("Dai Stablecoin", "DAI", 18);
        handler = new PaymentHandler(payment, usdc, dai, owner, endowment);
        vm.startPrank(owner);
        payment.updateERC20Token(address(usdc), true);
        payment.updateERC20Token(address(dai), true);
        payment.setEndowment(endowment);
        payment.setFilForwarder(address(handler.forwarder()));
        vm.stopPrank();
        targetContract(address(handler));
    }

    function invariant_tokenBalancesAreConserved() public view {
        address[2] memory tokens = [address(usdc), address(dai)];
        for (uint256 i = 0; i < tokens.length; i++) {
            address t = tokens[i];
            assertEq(
                payment.getERC20Balance(t), handler.paidIn(t) + handler.donated(t) - handler.sweptOut(t), "contract"
            );
            assertEq(MockStablecoin(t).balanceOf(endowment), handler.sweptOut(t), "endowment");
        }
    }

    function invariant_nativeBalanceIsConserved() public view {
        assertEq(
            payment.getNativeBalance(), handler.paidIn(address(0)) - handler.sweptOut(address(0)) - handler.forwardedOut()
        );
        assertEq(endowment.balance, handler.sweptOut(address(0)));
        assertEq(address(handler.forwarder()).balance, handler.forwardedOut());
    }

    function invariant_onlyTheOwnerMovesMoneyOrControl() public view {
        assertEq(handler.strangerSuccesses(), 0);
        assertEq(payment.owner(), owner);
        assertEq(payment.endowment(), endowment);
        assertEq(payment.filForwarder(), address(handler.forwarder()));
        assertFalse(payment.tokenStatus(address(handler.unlisted())));
    }

    function invariant_txIdsStrictlyIncreaseAndCountPayments() public view {
        assertFalse(handler.txIdNotIncreasing());
        assertEq(payment.paymentCount(), handler.payments());
        assertEq(handler.lastTxId(), handler.payments());
    }

    function invariant_unlistedTokensNeverGetIn() public view {
        assertEq(handler.unlistedAccepted(), 0);
        assertEq(handler.unlisted().balanceOf(address(payment)), 0);
    }
}
