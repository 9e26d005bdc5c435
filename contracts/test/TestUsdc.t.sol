// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Test} from "./utils/Test.sol";
import {TestUsdc} from "../mocks/TestUsdc.sol";

/// @notice EIP-3009 on the test USDC: a signed authorisation moves funds once, inside its window,
/// only with the payer's signature over exactly those terms, and only if the payer has the funds.
contract TestUsdcTest is Test {
    TestUsdc internal usdc;

    uint256 internal payerKey = 0xA11CE;
    address internal payer;
    address internal payee = makeAddr("payee");
    address internal relayer = makeAddr("relayer");

    uint256 internal constant VALUE = 10_000; // 0.01 USDC
    uint256 internal constant START = 1_000_000;
    bytes32 internal constant NONCE = keccak256("nonce-1");

    function setUp() public {
        usdc = new TestUsdc();
        payer = vm.addr(payerKey);
        usdc.mint(payer, 1_000_000);
        vm.warp(START);
    }

    function _digest(bytes32 typeHash, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce)
        internal
        view
        returns (bytes32)
    {
        bytes32 structHash = keccak256(abi.encode(typeHash, payer, to, value, validAfter, validBefore, nonce));
        return keccak256(abi.encodePacked("\x19\x01", usdc.DOMAIN_SEPARATOR(), structHash));
    }

    function _sign(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _authorize(uint256 value, uint256 validBefore, bytes32 nonce) internal view returns (bytes memory) {
        return _sign(payerKey, _digest(usdc.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(), payee, value, 0, validBefore, nonce));
    }

    function test_metadataAndDomainAreUsdcs() public view {
        assertEq(usdc.decimals(), 6);
        bytes32 expected = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("USD Coin"),
                keccak256("2"),
                block.chainid,
                address(usdc)
            )
        );
        assertEq(usdc.DOMAIN_SEPARATOR(), expected);
    }

    function test_transferWithAuthorizationMovesFundsOnceAnySubmitter() public {
        bytes memory signature = _authorize(VALUE, START + 60, NONCE);
        vm.prank(relayer);
        usdc.transferWithAuthorization(payer, payee, VALUE, 0, START + 60, NONCE, signature);
        assertEq(usdc.balanceOf(payee), VALUE);
        assertEq(usdc.balanceOf(payer), 1_000_000 - VALUE);
        assertTrue(usdc.authorizationState(payer, NONCE));

        vm.expectRevert(abi.encodeWithSelector(TestUsdc.AuthorizationAlreadyUsed.selector, payer, NONCE));
        usdc.transferWithAuthorization(payer, payee, VALUE, 0, START + 60, NONCE, signature);
        assertEq(usdc.balanceOf(payee), VALUE);
    }

    function test_splitSignatureOverloadIsTheSameAuthorization() public {
        bytes32 digest = _digest(usdc.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(), payee, VALUE, 0, START + 60, NONCE);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(payerKey, digest);
        usdc.transferWithAuthorization(payer, payee, VALUE, 0, START + 60, NONCE, v, r, s);
        assertEq(usdc.balanceOf(payee), VALUE);
    }

    function test_expiredAtValidBefore() public {
        bytes memory signature = _authorize(VALUE, START, NONCE);
        vm.expectRevert(abi.encodeWithSelector(TestUsdc.AuthorizationExpired.selector, START));
        usdc.transferWithAuthorization(payer, payee, VALUE, 0, START, NONCE, signature);
        assertFalse(usdc.authorizationState(payer, NONCE));
    }

    function test_notYetValid() public {
        bytes32 digest =
            _digest(usdc.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(), payee, VALUE, START, START + 60, NONCE);
        bytes memory signature = _sign(payerKey, digest);
        vm.expectRevert(abi.encodeWithSelector(TestUsdc.AuthorizationNotYetValid.selector, START));
        usdc.transferWithAuthorization(payer, payee, VALUE, START, START + 60, NONCE, signature);
    }

    function test_changedTermsOrOtherSignerAreRefused() public {
        bytes memory signature = _authorize(VALUE, START + 60, NONCE);
        // A larger amount than signed.
        vm.expectRevert(abi.encodeWithSelector(TestUsdc.InvalidAuthorizationSignature.selector, payer));
        usdc.transferWithAuthorization(payer, payee, VALUE + 1, 0, START + 60, NONCE, signature);
        // Another payee than signed.
        vm.expectRevert(abi.encodeWithSelector(TestUsdc.InvalidAuthorizationSignature.selector, payer));
        usdc.transferWithAuthorization(payer, relayer, VALUE, 0, START + 60, NONCE, signature);
        // Signed by someone else.
        bytes memory forged = _sign(
            0xB0B, _digest(usdc.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(), payee, VALUE, 0, START + 60, NONCE)
        );
        vm.expectRevert(abi.encodeWithSelector(TestUsdc.InvalidAuthorizationSignature.selector, payer));
        usdc.transferWithAuthorization(payer, payee, VALUE, 0, START + 60, NONCE, forged);
        assertEq(usdc.balanceOf(payee), 0);
        assertFalse(usdc.authorizationState(payer, NONCE));
    }

    function test_payerWithoutFundsLeavesTheNonceUnused() public {
        bytes memory signature = _authorize(2_000_000, START + 60, NONCE);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, payer, 1_000_000, 2_000_000)
        );
        usdc.transferWithAuthorization(payer, payee, 2_000_000, 0, START + 60, NONCE, signature);
        assertFalse(usdc.authorizationState(payer, NONCE));
    }

    function test_receiveWithAuthorizationOnlyByThePayee() public {
        bytes32 digest = _digest(usdc.RECEIVE_WITH_AUTHORIZATION_TYPEHASH(), payee, VALUE, 0, START + 60, NONCE);
        bytes memory signature = _sign(payerKey, digest);
        vm.prank(relayer);
        vm.expectRevert(abi.encodeWithSelector(TestUsdc.CallerMustBePayee.selector, relayer, payee));
        usdc.receiveWithAuthorization(payer, payee, VALUE, 0, START + 60, NONCE, signature);
        vm.prank(payee);
        usdc.receiveWithAuthorization(payer, payee, VALUE, 0, START + 60, NONCE, signature);
        assertEq(usdc.balanceOf(payee), VALUE);
    }

    function test_cancelledAuthorizationCannotBeUsed() public {
        bytes memory transfer = _authorize(VALUE, START + 60, NONCE);
        bytes memory cancel = _sign(
            payerKey,
            keccak256(
                abi.encodePacked(
                    "\x19\x01",
                    usdc.DOMAIN_SEPARATOR(),
                    keccak256(abi.encode(usdc.CANCEL_AUTHORIZATION_TYPEHASH(), payer, NONCE))
                )
            )
        );
        usdc.cancelAuthorization(payer, NONCE, cancel);
        vm.expectRevert(abi.encodeWithSelector(TestUsdc.AuthorizationAlreadyUsed.selector, payer, NONCE));
        usdc.transferWithAuthorization(payer, payee, VALUE, 0, START + 60, NONCE, transfer);
    }
}
