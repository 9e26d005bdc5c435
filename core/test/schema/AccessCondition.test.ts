import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import fc from "fast-check"
import {
  abiTypes,
  type ConditionInput,
  type ConditionRequestInput,
  validateConditionRequest,
  validateConditions
} from "../../src/schema/AccessCondition.ts"

// =============================================================================
// Fixtures
// =============================================================================

const erc20 = {
  id: 1,
  chain: "Ethereum",
  method: "balanceOf",
  standardContractType: "ERC20",
  contractAddress: "0x1a6ceedD39E85668c233a385347e7ba4b7E0A5B8",
  parameters: [":userAddress"],
  returnValueTest: { comparator: ">=", value: "1" }
}
const nativeEvm = {
  id: 2,
  chain: "Polygon",
  method: "getBalance",
  standardContractType: "",
  returnValueTest: { comparator: ">", value: 0 }
}
const custom = {
  id: 3,
  chain: "Calibration",
  method: "isMember",
  standardContractType: "Custom",
  contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  parameters: [":userAddress", 7],
  inputArrayType: ["address", "uint256"],
  outputType: "bool",
  returnValueTest: { comparator: "==", value: "true" }
}
const splToken = {
  id: 1,
  chain: "DEVNET",
  method: "getTokenAccountsByOwner",
  standardContractType: "spl-token",
  contractAddress: "Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr",
  parameters: [":userAddress"],
  pdaInterface: { offset: 0, selector: "amount" },
  returnValueTest: { comparator: ">", value: 0 }
}
const solanaNative = {
  id: 2,
  chain: "mainnet",
  method: "getBlockHeight",
  standardContractType: "",
  pdaInterface: {},
  returnValueTest: { comparator: ">=", value: 100 }
}
const coreumNative = {
  id: 1,
  chain: "Coreum_Testnet",
  method: "getBalance",
  denom: "utestcore",
  returnValueTest: { comparator: ">=", value: 1 }
}
const coreumToken = {
  id: 2,
  chain: "coreum_mainnet",
  method: "balance",
  standardContractType: "cw20",
  contractAddress: "core1xyz",
  parameters: [":userAddress"],
  classid: "nft1",
  returnValueTest: { comparator: "!=", value: [0] }
}

const xrd = "resource_rdx1tknxxxxxxxxxradxrdxxxxxxxxx009923554798xxxxxxxxxradxrd"
const radixTokens = {
  id: 1,
  chain: "Radix_Mainnet",
  method: "getFtsByAddress",
  standardContractType: "",
  resourceAddress: xrd,
  returnValueTest: { comparator: ">=", value: "1" }
}
const radixBadge = {
  id: 2,
  chain: "radix_mainnet",
  method: "getNftsByAddress",
  resourceAddress: "resource_rdx1ngxyz",
  returnValueTest: { comparator: ">", value: 0 }
}

const cid = "QmWATWQ7fVPP2EFGu71UkfnqhYXDYH566qy47CnJDgvs8u"
const owner = "0xF0bC72fA04aEa04d04b1fA80B359Adb566E1c8B1"
const shards = [{ key: "1", index: "a" }, {}, {}, {}, {}]

/** The failure message of `validateConditions(input)`, or "ok". */
const outcome = (input: ConditionInput) =>
  validateConditions(input).pipe(Effect.match({ onFailure: (e) => e.message, onSuccess: () => "ok" }))

const expectDetail = (input: ConditionInput, detail: string) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(validateConditions(input))
    assert.strictEqual(error._tag, "ConditionValidationError")
    assert.strictEqual(error.detail, detail)
    assert.strictEqual(error.message, `Condition validation error: ${detail}`)
  })

const omit = <A extends object, K extends keyof A>(a: A, key: K): Omit<A, K> => {
  const { [key]: _, ...rest } = a
  return rest
}

// =============================================================================
// Tests
// =============================================================================

describe("AccessCondition", () => {
  describe("accepted", () => {
    it.effect("one ERC20 condition: chain type EVM and decryption type ADDRESS by default, input kept", () =>
      Effect.gen(function* () {
        const valid = yield* validateConditions({ conditions: [erc20] })
        assert.deepStrictEqual<unknown>(valid, { chainType: "EVM", decryptionType: "ADDRESS", conditions: [erc20] })
      })
    )

    it.effect("EVM: native, ERC20 and Custom with an aggregator", () =>
      Effect.gen(function* () {
        const valid = yield* validateConditions({
          conditions: [erc20, nativeEvm, custom],
          aggregator: "([1] and [2]) or [3]",
          chainType: "evm",
          decryptionType: "access_conditions"
        })
        assert.deepStrictEqual<unknown>(valid, {
          chainType: "EVM",
          decryptionType: "ACCESS_CONDITIONS",
          aggregator: "([1] and [2]) or [3]",
          conditions: [erc20, nativeEvm, custom]
        })
      })
    )

    it.effect.each([
      ["ERC721", "erc721"],
      ["ERC1155", "Erc1155"],
      ["Custom", "CUSTOM"],
      ["ERC20", "erc20"]
    ])("EVM standardContractType %s in any case (%s); the value is kept as given", ([, given]) =>
      Effect.gen(function* () {
        const condition = { ...custom, standardContractType: given }
        const valid = yield* validateConditions({ conditions: [condition] })
        assert.deepStrictEqual<unknown>(valid.conditions, [condition])
      })
    )

    it.effect("EVM native: getBlockNumber with optional contract and parameters", () =>
      Effect.gen(function* () {
        const condition = { ...nativeEvm, method: "getBlockNumber", contractAddress: "", parameters: [] }
        assert.deepStrictEqual<unknown>((yield* validateConditions({ conditions: [condition] })).conditions, [
          condition
        ])
      })
    )

    it.effect("EVM: ABI types on a non-Custom type are allowed (still checked against the list)", () =>
      Effect.gen(function* () {
        const condition = { ...erc20, inputArrayType: ["address"], outputType: "uint256" }
        assert.deepStrictEqual<unknown>((yield* validateConditions({ conditions: [condition] })).conditions, [
          condition
        ])
      })
    )

    it.effect.each([
      ["number", 5],
      ["string", "5"],
      ["array", ["a", 1]],
      ["empty array", []]
    ])("returnValueTest.value may be a %s", ([, value]) =>
      Effect.gen(function* () {
        assert.strictEqual(
          yield* outcome({ conditions: [{ ...erc20, returnValueTest: { comparator: "==", value } }] }),
          "ok"
        )
      })
    )

    it.effect.each(["==", ">=", "<=", "!=", ">", "<"])("comparator %s", (comparator) =>
      Effect.gen(function* () {
        assert.strictEqual(
          yield* outcome({ conditions: [{ ...erc20, returnValueTest: { comparator, value: 1 } }] }),
          "ok"
        )
      })
    )

    it.effect("Solana: spl-token and native, chain and type in any case", () =>
      Effect.gen(function* () {
        const upper = { ...splToken, standardContractType: "SPL-TOKEN", chain: "testnet" }
        const valid = yield* validateConditions({
          conditions: [upper, solanaNative],
          aggregator: "[1] or [2]",
          chainType: "Solana"
        })
        assert.deepStrictEqual<unknown>(valid, {
          chainType: "SOLANA",
          decryptionType: "ADDRESS",
          aggregator: "[1] or [2]",
          conditions: [upper, solanaNative]
        })
      })
    )

    it.effect.each(["getBalance", "getLastBlockTime", "getBlockHeight"])("Solana native method %s", (method) =>
      Effect.gen(function* () {
        assert.strictEqual(yield* outcome({ conditions: [{ ...solanaNative, method }], chainType: "SOLANA" }), "ok")
      })
    )

    it.effect("Coreum: native without a type, typed with contract and parameters, denom and classid", () =>
      Effect.gen(function* () {
        const valid = yield* validateConditions({
          conditions: [coreumNative, coreumToken, { ...coreumNative, id: 3, standardContractType: "" }],
          aggregator: "[1] and [2] and [3]",
          chainType: "COREUM"
        })
        assert.strictEqual(valid.chainType, "COREUM")
        assert.strictEqual(valid.conditions.length, 3)
      })
    )

    it.effect.each(["Coreum_Devnet", "coreum_testnet", "COREUM_MAINNET"])("Coreum chain %s", (chain) =>
      Effect.gen(function* () {
        assert.strictEqual(yield* outcome({ conditions: [{ ...coreumNative, chain }], chainType: "coreum" }), "ok")
      })
    )

    it.effect("Radix: a fungible and a non-fungible resource, type absent or any text, input kept", () =>
      Effect.gen(function* () {
        const custom = { ...radixTokens, id: 3, standardContractType: "custom", chain: "RADIX_MAINNET" }
        const valid = yield* validateConditions({
          conditions: [radixTokens, radixBadge, custom],
          aggregator: "([1] and [2]) or [3]",
          chainType: "radix"
        })
        assert.deepStrictEqual<unknown>(valid, {
          chainType: "RADIX",
          decryptionType: "ADDRESS",
          aggregator: "([1] and [2]) or [3]",
          conditions: [radixTokens, radixBadge, custom]
        })
      })
    )

    it.effect.each([
      [undefined, undefined],
      ["", ""],
      [null, null]
    ])("chainType %j and decryptionType %j fall back to EVM and ADDRESS", ([chainType, decryptionType]) =>
      Effect.gen(function* () {
        const valid = yield* validateConditions({
          conditions: [erc20],
          chainType: chainType as string | undefined,
          decryptionType: decryptionType as string | undefined
        })
        assert.strictEqual(valid.chainType, "EVM")
        assert.strictEqual(valid.decryptionType, "ADDRESS")
      })
    )

    it.effect.each([["([1] and [2])"], ["[1] OR [2]"], [" or "], ["[1] and [99]"]])(
      "aggregator %j contains ' and ' or ' or ' (nothing more is checked)",
      ([aggregator]) =>
        Effect.gen(function* () {
          const valid = yield* validateConditions({ conditions: [erc20, nativeEvm], aggregator })
          assert.strictEqual(valid.aggregator, aggregator)
        })
    )

    it.effect("with one condition the aggregator is not needed and not checked", () =>
      Effect.gen(function* () {
        assert.isUndefined((yield* validateConditions({ conditions: [erc20] })).aggregator)
        assert.strictEqual((yield* validateConditions({ conditions: [erc20], aggregator: "[1]" })).aggregator, "[1]")
      })
    )

    it.effect("ids need not be integers or in order, only ≥ 1 and unique", () =>
      Effect.gen(function* () {
        assert.strictEqual(
          yield* outcome({
            conditions: [
              { ...erc20, id: 7 },
              { ...nativeEvm, id: 1.5 }
            ],
            aggregator: "[7] and [1.5]"
          }),
          "ok"
        )
      })
    )
  })

  describe("rejected, naming the field", () => {
    it.effect.each<readonly [string, ConditionInput, string]>([
      [
        "no conditions (a file keeps at least 1; kavach sends [] to clear them)",
        { conditions: [] },
        `"conditions" must contain at least 1 items`
      ],
      ["conditions not an array", { conditions: "x" as never }, `"conditions" must be an array`],
      ["a null condition", { conditions: [null] }, `"conditions[0]" Expected object`],
      ["id 0", { conditions: [{ ...erc20, id: 0 }] }, `"conditions[0].id" Expected a value greater than or equal to 1`],
      [
        "id -3",
        { conditions: [{ ...erc20, id: -3 }] },
        `"conditions[0].id" Expected a value greater than or equal to 1`
      ],
      ["id as a string", { conditions: [{ ...erc20, id: "1" }] }, `"conditions[0].id" Expected number`],
      ["id NaN", { conditions: [{ ...erc20, id: Number.NaN }] }, `"conditions[0].id" Expected a finite number`],
      ["id missing", { conditions: [omit(erc20, "id")] }, `"conditions[0].id" is required`],
      [
        "duplicate ids",
        { conditions: [erc20, { ...nativeEvm, id: 1 }], aggregator: "[1] and [1]" },
        `"conditions[1]" contains a duplicate value`
      ],
      [
        "duplicate ids further down",
        { conditions: [erc20, nativeEvm, { ...custom, id: 2 }], aggregator: "[1] and [2]" },
        `"conditions[2]" contains a duplicate value`
      ],
      ["two conditions, no aggregator", { conditions: [erc20, nativeEvm] }, `"aggregator" is required`],
      [
        "aggregator without ' and ' / ' or '",
        { conditions: [erc20, nativeEvm], aggregator: "[1]&&[2]" },
        `"aggregator" with value "[1]&&[2]" fails to match the required pattern: /( and | or )/i`
      ],
      [
        "aggregator 'OR' without a space",
        { conditions: [erc20, nativeEvm], aggregator: "[1] OR[2]" },
        `"aggregator" with value "[1] OR[2]" fails to match the required pattern: /( and | or )/i`
      ],
      [
        "aggregator empty",
        { conditions: [erc20, nativeEvm], aggregator: "" },
        `"aggregator" with value "" fails to match the required pattern: /( and | or )/i`
      ],
      [
        "aggregator not a string",
        { conditions: [erc20, nativeEvm], aggregator: 5 as never },
        `"aggregator" must be a string`
      ],
      [
        "chainType TRON (not supported)",
        { conditions: [erc20], chainType: "tron" },
        `"chainType" must be one of [EVM, SOLANA, COREUM, RADIX]`
      ],
      [
        "chainType a number",
        { conditions: [erc20], chainType: 5 as never },
        `"chainType" must be one of [EVM, SOLANA, COREUM, RADIX]`
      ],
      [
        "decryptionType SOCIAL (pre-2023)",
        { conditions: [erc20], decryptionType: "SOCIAL" },
        `"decryptionType" must be one of [ADDRESS, ACCESS_CONDITIONS]`
      ],
      [
        "decryptionType an object",
        { conditions: [erc20], decryptionType: {} as never },
        `"decryptionType" must be one of [ADDRESS, ACCESS_CONDITIONS]`
      ]
    ])("%s", ([, input, detail]) => expectDetail(input, detail))

    it.effect.each<readonly [string, unknown, string]>([
      ["chain empty", { ...erc20, chain: "" }, `"conditions[0].chain" Expected a value with a length of at least 1`],
      ["chain missing", omit(erc20, "chain"), `"conditions[0].chain" is required`],
      ["method empty", { ...erc20, method: "" }, `"conditions[0].method" Expected a value with a length of at least 1`],
      [
        "standardContractType missing",
        omit(erc20, "standardContractType"),
        `"conditions[0].standardContractType" is required`
      ],
      [
        "standardContractType ERC777",
        { ...erc20, standardContractType: "ERC777" },
        `"conditions[0].standardContractType" must be one of [ERC20, ERC721, ERC1155, Custom, ]`
      ],
      [
        "native type with balanceOf",
        { ...nativeEvm, method: "balanceOf" },
        `"conditions[0].method" must be one of [getBalance, getBlockNumber]`
      ],
      ["ERC20 without contractAddress", omit(erc20, "contractAddress"), `"conditions[0].contractAddress" is required`],
      [
        "ERC20 with an empty contractAddress",
        { ...erc20, contractAddress: "" },
        `"conditions[0].contractAddress" is required`
      ],
      ["ERC20 without parameters", omit(erc20, "parameters"), `"conditions[0].parameters" is required`],
      ["parameters not an array", { ...erc20, parameters: "x" }, `"conditions[0].parameters" Expected array`],
      ["Custom without inputArrayType", omit(custom, "inputArrayType"), `"conditions[0].inputArrayType" is required`],
      ["Custom without outputType", omit(custom, "outputType"), `"conditions[0].outputType" is required`],
      [
        "custom (lower case) without outputType",
        { ...omit(custom, "outputType"), standardContractType: "custom" },
        `"conditions[0].outputType" is required`
      ],
      [
        "Custom with inputArrayType string",
        { ...custom, inputArrayType: ["address", "string"] },
        `"conditions[0].inputArrayType[1]" must be a supported ABI type`
      ],
      [
        "Custom with outputType uint",
        { ...custom, outputType: "uint" },
        `"conditions[0].outputType" must be a supported ABI type`
      ],
      [
        "Custom with outputType bytes20",
        { ...custom, outputType: "bytes20" },
        `"conditions[0].outputType" must be a supported ABI type`
      ],
      [
        "inputArrayType not an array",
        { ...custom, inputArrayType: "address" },
        `"conditions[0].inputArrayType" Expected array`
      ],
      ["returnValueTest missing", omit(erc20, "returnValueTest"), `"conditions[0].returnValueTest" is required`],
      ["returnValueTest null", { ...erc20, returnValueTest: null }, `"conditions[0].returnValueTest" Expected object`],
      [
        "comparator =",
        { ...erc20, returnValueTest: { comparator: "=", value: 1 } },
        `"conditions[0].returnValueTest.comparator" Expected "==" | ">=" | "<=" | "!=" | ">" | "<"`
      ],
      [
        "value missing",
        { ...erc20, returnValueTest: { comparator: "==" } },
        `"conditions[0].returnValueTest.value" is required`
      ],
      [
        "value a boolean",
        { ...erc20, returnValueTest: { comparator: "==", value: true } },
        `"conditions[0].returnValueTest.value" Expected number | string | array`
      ],
      [
        "value an object",
        { ...erc20, returnValueTest: { comparator: "==", value: { a: 1 } } },
        `"conditions[0].returnValueTest.value" Expected number | string | array`
      ],
      [
        "value an empty string",
        { ...erc20, returnValueTest: { comparator: "==", value: "" } },
        `"conditions[0].returnValueTest.value" Expected a value with a length of at least 1`
      ],
      ["unknown key", { ...erc20, foo: 1 }, `"conditions[0].foo" is not allowed`],
      ["a Coreum key on EVM", { ...erc20, denom: "ucore" }, `"conditions[0].denom" is not allowed`],
      ["a Solana key on EVM", { ...erc20, pdaInterface: {} }, `"conditions[0].pdaInterface" is not allowed`],
      [
        "unknown key in returnValueTest",
        { ...erc20, returnValueTest: { comparator: "==", value: 1, extra: true } },
        `"conditions[0].returnValueTest.extra" is not allowed`
      ]
    ])("EVM: %s", ([, condition, detail]) => expectDetail({ conditions: [condition] }, detail))

    it.effect("the path names the right condition in a list", () =>
      expectDetail(
        { conditions: [erc20, nativeEvm, { ...custom, outputType: "string" }], aggregator: "[1] and [2] and [3]" },
        `"conditions[2].outputType" must be a supported ABI type`
      )
    )

    it.effect.each<readonly [string, unknown, string]>([
      [
        "chain LOCALNET",
        { ...splToken, chain: "LOCALNET" },
        `"conditions[0].chain" must be one of [DEVNET, TESTNET, MAINNET]`
      ],
      [
        "chain an EVM chain",
        { ...splToken, chain: "Ethereum" },
        `"conditions[0].chain" must be one of [DEVNET, TESTNET, MAINNET]`
      ],
      [
        "spl-token with getBalance",
        { ...splToken, method: "getBalance" },
        `"conditions[0].method" must be [getTokenAccountsByOwner]`
      ],
      [
        "spl-token without contractAddress",
        omit(splToken, "contractAddress"),
        `"conditions[0].contractAddress" is required`
      ],
      [
        "native with getTokenAccountsByOwner",
        { ...solanaNative, method: "getTokenAccountsByOwner" },
        `"conditions[0].method" must be one of [getBalance, getLastBlockTime, getBlockHeight]`
      ],
      [
        "type ERC20",
        { ...splToken, standardContractType: "ERC20" },
        `"conditions[0].standardContractType" must be one of [spl-token, ]`
      ],
      [
        "pdaInterface missing (required object)",
        omit(splToken, "pdaInterface"),
        `"conditions[0].pdaInterface" is required`
      ],
      [
        "pdaInterface offset -1",
        { ...splToken, pdaInterface: { offset: -1 } },
        `"conditions[0].pdaInterface.offset" Expected a value greater than or equal to 0`
      ],
      [
        "pdaInterface selector empty",
        { ...splToken, pdaInterface: { selector: "" } },
        `"conditions[0].pdaInterface.selector" Expected a value with a length of at least 1`
      ],
      [
        "unknown key in pdaInterface",
        { ...splToken, pdaInterface: { offset: 0, size: 8 } },
        `"conditions[0].pdaInterface.size" is not allowed`
      ],
      ["EVM-only key", { ...splToken, outputType: "bool" }, `"conditions[0].outputType" is not allowed`]
    ])("Solana: %s", ([, condition, detail]) => expectDetail({ conditions: [condition], chainType: "SOLANA" }, detail))

    it.effect.each<readonly [string, unknown, string]>([
      [
        "chain Coreum_Localnet",
        { ...coreumNative, chain: "Coreum_Localnet" },
        `"conditions[0].chain" must be one of [Coreum_Devnet, Coreum_Testnet, Coreum_Mainnet]`
      ],
      ["method missing", omit(coreumNative, "method"), `"conditions[0].method" is required`],
      [
        "typed without contractAddress",
        omit(coreumToken, "contractAddress"),
        `"conditions[0].contractAddress" is required`
      ],
      ["typed without parameters", omit(coreumToken, "parameters"), `"conditions[0].parameters" is required`],
      ["denom a number", { ...coreumNative, denom: 5 }, `"conditions[0].denom" Expected string`],
      ["Solana-only key", { ...coreumNative, pdaInterface: {} }, `"conditions[0].pdaInterface" is not allowed`],
      [
        "Radix key",
        { ...coreumNative, resourceAddress: "resource_rdx1" },
        `"conditions[0].resourceAddress" is not allowed`
      ]
    ])("Coreum: %s", ([, condition, detail]) => expectDetail({ conditions: [condition], chainType: "COREUM" }, detail))

    it.effect.each<readonly [string, unknown, string]>([
      [
        "chain Radix_Stokenet",
        { ...radixTokens, chain: "Radix_Stokenet" },
        `"conditions[0].chain" must be [Radix_Mainnet]`
      ],
      ["chain missing", omit(radixTokens, "chain"), `"conditions[0].chain" is required`],
      ["resourceAddress missing", omit(radixTokens, "resourceAddress"), `"conditions[0].resourceAddress" is required`],
      [
        "resourceAddress empty",
        { ...radixTokens, resourceAddress: "" },
        `"conditions[0].resourceAddress" Expected a value with a length of at least 1`
      ],
      [
        "resourceAddress a number",
        { ...radixTokens, resourceAddress: 7 },
        `"conditions[0].resourceAddress" Expected string`
      ],
      ["method missing", omit(radixTokens, "method"), `"conditions[0].method" is required`],
      [
        "method empty",
        { ...radixTokens, method: "" },
        `"conditions[0].method" Expected a value with a length of at least 1`
      ],
      [
        "standardContractType a number",
        { ...radixTokens, standardContractType: 0 },
        `"conditions[0].standardContractType" Expected string`
      ],
      [
        "contractAddress (not allowed)",
        { ...radixTokens, contractAddress: xrd },
        `"conditions[0].contractAddress" is not allowed`
      ],
      [
        "parameters (not allowed)",
        { ...radixTokens, parameters: [":userAddress"] },
        `"conditions[0].parameters" is not allowed`
      ],
      ["a Coreum key", { ...radixTokens, denom: "ucore" }, `"conditions[0].denom" is not allowed`],
      ["a Solana key", { ...radixTokens, pdaInterface: {} }, `"conditions[0].pdaInterface" is not allowed`],
      ["returnValueTest missing", omit(radixTokens, "returnValueTest"), `"conditions[0].returnValueTest" is required`],
      [
        "value a boolean",
        { ...radixTokens, returnValueTest: { comparator: ">=", value: true } },
        `"conditions[0].returnValueTest.value" Expected number | string | array`
      ],
      ["id 0", { ...radixTokens, id: 0 }, `"conditions[0].id" Expected a value greater than or equal to 1`]
    ])("Radix: %s", ([, condition, detail]) => expectDetail({ conditions: [condition], chainType: "RADIX" }, detail))

    it.effect("Radix: duplicate ids and a missing aggregator, as for every chain type", () =>
      Effect.gen(function* () {
        yield* expectDetail({ conditions: [radixTokens, radixBadge], chainType: "RADIX" }, `"aggregator" is required`)
        yield* expectDetail(
          { conditions: [radixTokens, { ...radixBadge, id: 1 }], aggregator: "[1] or [1]", chainType: "RADIX" },
          `"conditions[1]" contains a duplicate value`
        )
        yield* expectDetail({ conditions: [], chainType: "RADIX" }, `"conditions" must contain at least 1 items`)
      })
    )

    it.effect("the chain type decides the shape: an EVM condition under RADIX, a Radix one under EVM", () =>
      Effect.gen(function* () {
        yield* expectDetail(
          { conditions: [erc20], chainType: "RADIX" },
          `"conditions[0].contractAddress" is not allowed`
        )
        yield* expectDetail(
          { conditions: [{ ...nativeEvm, resourceAddress: xrd }], chainType: "RADIX" },
          `"conditions[0].chain" must be [Radix_Mainnet]`
        )
        yield* expectDetail({ conditions: [radixTokens] }, `"conditions[0].resourceAddress" is not allowed`)
      })
    )

    it.effect("the chain type decides the shape: an EVM condition under SOLANA fails", () =>
      expectDetail(
        { conditions: [erc20], chainType: "solana" },
        `"conditions[0].chain" must be one of [DEVNET, TESTNET, MAINNET]`
      )
    )

    it.effect("chain type and decryption type are checked before the conditions", () =>
      Effect.gen(function* () {
        assert.strictEqual(
          yield* outcome({ conditions: [], chainType: "FLOW" }),
          `Condition validation error: "chainType" must be one of [EVM, SOLANA, COREUM, RADIX]`
        )
        assert.strictEqual(
          yield* outcome({ conditions: [], decryptionType: "x" }),
          `Condition validation error: "decryptionType" must be one of [ADDRESS, ACCESS_CONDITIONS]`
        )
        // The aggregator is checked before the conditions themselves.
        assert.strictEqual(
          yield* outcome({ conditions: [{}, {}] }),
          `Condition validation error: "aggregator" is required`
        )
      })
    )
  })

  describe("ABI types", () => {
    it.effect("the provider's 64 names and nothing else", () =>
      Effect.sync(() => {
        assert.strictEqual(abiTypes.length, 64)
        assert.strictEqual(new Set(abiTypes).size, 64)
        const scalars = [
          "address",
          "bool",
          "bytes1",
          "bytes2",
          "bytes3",
          "bytes4",
          "bytes5",
          "bytes6",
          "bytes7",
          "bytes8",
          "bytes16",
          "bytes32",
          ...[8, 16, 24, 32, 40, 48, 64, 128, 192, 256].map((n) => `uint${n}`),
          ...[8, 16, 24, 32, 40, 48, 64, 128, 192, 256].map((n) => `int${n}`)
        ]
        assert.deepStrictEqual([...abiTypes].sort(), [...scalars, ...scalars.map((t) => `${t}[]`)].sort())
        for (const missing of ["string", "bytes", "uint", "int", "bytes20", "uint512", "tuple", "address[2]"])
          assert.notInclude(abiTypes, missing)
      })
    )

    it.effect.each(abiTypes)("%s is accepted as inputArrayType and outputType", (type) =>
      Effect.gen(function* () {
        assert.strictEqual(
          yield* outcome({ conditions: [{ ...custom, inputArrayType: [type], outputType: type }] }),
          "ok"
        )
      })
    )
  })

  describe("validateConditionRequest", () => {
    const request = (overrides: Partial<ConditionRequestInput>): ConditionRequestInput => ({
      address: owner,
      cid,
      conditions: [erc20],
      keyShards: shards,
      ...overrides
    })

    it.effect("creating: 5 shards, address lower-cased, CID and conditions checked", () =>
      Effect.gen(function* () {
        const valid = yield* validateConditionRequest(request({ chainType: "evm" }), { creating: true })
        assert.deepStrictEqual<unknown>(valid, {
          chainType: "EVM",
          decryptionType: "ADDRESS",
          conditions: [erc20],
          address: owner.toLowerCase(),
          cid,
          keyShards: shards
        })
      })
    )

    it.effect("updating: no shards (absent or empty)", () =>
      Effect.gen(function* () {
        const absent = yield* validateConditionRequest(request({ keyShards: undefined }), { creating: false })
        assert.deepStrictEqual(absent.keyShards, [])
        const empty = yield* validateConditionRequest(request({ keyShards: [] }), { creating: false })
        assert.deepStrictEqual(empty.keyShards, [])
      })
    )

    it.effect.each<readonly [string, ReadonlyArray<unknown> | undefined, boolean, number]>([
      ["creating with 4", shards.slice(0, 4), true, 4],
      ["creating with 6", [...shards, {}], true, 6],
      ["creating with none", undefined, true, 0],
      ["creating with []", [], true, 0],
      ["updating with 5", shards, false, 5],
      ["updating with 1", [{}], false, 1],
      ["a string instead of an array", "abcde" as never, true, -1]
    ])("keyShards %s → keyShards must be an array of 5 objects", ([, keyShards, creating, count]) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(validateConditionRequest(request({ keyShards }), { creating }))
        if (error._tag !== "InvalidKeyShards") return assert.fail(`expected InvalidKeyShards, got ${error._tag}`)
        assert.strictEqual(error.message, "keyShards must be an array of 5 objects")
        assert.strictEqual(error.count, count)
      })
    )

    it.effect("a shard that is not an object is named", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          validateConditionRequest(request({ keyShards: [{}, {}, "x", {}, {}] }), { creating: true })
        )
        assert.strictEqual(error.message, `Condition validation error: "keyShards[2]" must be of type object`)
      })
    )

    it.effect.each<readonly [string, ConditionRequestInput, string, string]>([
      [
        "shard count first, though CID, address and conditions are all wrong too",
        { address: "nope", cid: "nope", conditions: [], keyShards: [{}] },
        "InvalidKeyShards",
        "keyShards must be an array of 5 objects"
      ],
      [
        "then the CID, before the address and the conditions",
        request({ address: "nope", cid: `garbage/${cid}/more`, conditions: [] }),
        "InvalidCid",
        "Invalid CID"
      ],
      [
        "then the address, before the conditions",
        request({ address: "0x123", conditions: [] }),
        "InvalidPublicKey",
        "Invalid public Key"
      ],
      [
        "the conditions last",
        request({ conditions: [] }),
        "ConditionValidationError",
        `Condition validation error: "conditions" must contain at least 1 items`
      ]
    ])("order: %s", ([, input, tag, message]) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(validateConditionRequest(input, { creating: true }))
        assert.strictEqual(error._tag, tag)
        assert.strictEqual(error.message, message)
      })
    )

    it.effect("a Solana owner key is accepted as given", () =>
      Effect.gen(function* () {
        const solanaOwner = "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV6"
        const valid = yield* validateConditionRequest(
          request({ address: solanaOwner, conditions: [splToken], chainType: "SOLANA" }),
          { creating: true }
        )
        assert.strictEqual(valid.address, solanaOwner)
        assert.strictEqual(valid.chainType, "SOLANA")
      })
    )

    it.effect("untyped callers: a non-string CID or address is a typed error", () =>
      Effect.gen(function* () {
        const cidError = yield* Effect.flip(
          validateConditionRequest(request({ cid: { toString: "x" } as never }), { creating: true })
        )
        if (cidError._tag !== "InvalidCid") return assert.fail(`expected InvalidCid, got ${cidError._tag}`)
        assert.strictEqual(cidError.cid, `{"toString":"x"}`)
        const addressError = yield* Effect.flip(
          validateConditionRequest(request({ address: [owner] as never }), { creating: true })
        )
        if (addressError._tag !== "InvalidPublicKey")
          return assert.fail(`expected InvalidPublicKey, got ${addressError._tag}`)
        assert.strictEqual(addressError.publicKey, JSON.stringify([owner]))
      })
    )
  })

  describe("properties", () => {
    const keys = fc.constantFrom(
      "id",
      "chain",
      "method",
      "standardContractType",
      "contractAddress",
      "parameters",
      "returnValueTest",
      "comparator",
      "value",
      "inputArrayType",
      "outputType",
      "pdaInterface",
      "offset",
      "selector",
      "denom",
      "classid",
      "resourceAddress",
      "toString",
      "valueOf",
      "__proto__"
    )
    const { json } = fc.letrec((tie) => ({
      json: fc.oneof(
        { depthSize: "small" },
        fc.jsonValue({ maxDepth: 1 }),
        fc.dictionary(keys, tie("json"), { maxKeys: 8 }),
        fc.array(tie("json"), { maxLength: 3 })
      )
    }))
    const input = fc.record(
      {
        conditions: fc.oneof(fc.array(json, { maxLength: 3 }), json),
        aggregator: json,
        chainType: fc.oneof(fc.constantFrom("evm", "SOLANA", "Coreum", "radix", "", null), json),
        decryptionType: fc.oneof(fc.constantFrom("address", "ACCESS_CONDITIONS", null), json),
        address: fc.oneof(fc.constant(owner), json),
        cid: fc.oneof(fc.constant(cid), json),
        keyShards: fc.oneof(fc.array(json, { maxLength: 6 }), json)
      },
      { requiredKeys: [] }
    )
    const expectedTags = new Set(["ConditionValidationError", "InvalidKeyShards", "InvalidCid", "InvalidPublicKey"])

    it.effect("random JSON never produces a defect, only a typed error or a success", () =>
      Effect.sync(() => {
        fc.assert(
          fc.property(input, fc.boolean(), (raw, creating) => {
            const value = raw as ConditionRequestInput
            for (const effect of [validateConditions(value), validateConditionRequest(value, { creating })]) {
              const exit = Effect.runSyncExit(effect as Effect.Effect<unknown, { readonly _tag: string }>)
              if (Exit.isSuccess(exit)) continue
              if (Cause.hasDies(exit.cause)) return false
              const failure = exit.cause.reasons[0]
              if (failure?._tag !== "Fail" || !expectedTags.has(failure.error._tag)) return false
            }
            return true
          }),
          { numRuns: 3000 }
        )
      })
    )

    /** `Radix_Mainnet` with each letter's case chosen at random. */
    const radixChain = fc
      .array(fc.boolean(), { minLength: 13, maxLength: 13 })
      .map((upper) => [..."Radix_Mainnet"].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(""))
    const radixCondition = fc.record(
      {
        id: fc.integer({ min: 1, max: 1_000_000 }),
        chain: radixChain,
        method: fc.string({ minLength: 1 }),
        standardContractType: fc.string(),
        resourceAddress: fc.string({ minLength: 1 }),
        returnValueTest: fc.record({
          comparator: fc.constantFrom("==", ">=", "<=", "!=", ">", "<"),
          value: fc.oneof(fc.integer(), fc.string({ minLength: 1 }), fc.array(fc.integer(), { maxLength: 3 }))
        })
      },
      { requiredKeys: ["id", "chain", "method", "resourceAddress", "returnValueTest"] }
    )

    it.effect("random Radix conditions pass as given; a contract, parameters or another chain never do", () =>
      Effect.sync(() => {
        fc.assert(
          fc.property(
            radixCondition,
            fc.constantFrom("contractAddress", "parameters"),
            fc.string({ minLength: 1 }).filter((chain) => chain.toLowerCase() !== "radix_mainnet"),
            (condition, forbidden, otherChain) => {
              const ok = Effect.runSyncExit(validateConditions({ conditions: [condition], chainType: "RADIX" }))
              if (!Exit.isSuccess(ok) || ok.value.chainType !== "RADIX") return false
              if (JSON.stringify(ok.value.conditions) !== JSON.stringify([condition])) return false
              const detail = (extra: object) =>
                Effect.runSync(
                  validateConditions({ conditions: [{ ...condition, ...extra }], chainType: "RADIX" }).pipe(
                    Effect.match({ onFailure: (e) => e.detail, onSuccess: () => "ok" })
                  )
                )
              return (
                detail({ [forbidden]: forbidden === "parameters" ? [] : "x" }) ===
                  `"conditions[0].${forbidden}" is not allowed` &&
                detail({ chain: otherChain }) === `"conditions[0].chain" must be [Radix_Mainnet]`
              )
            }
          ),
          { numRuns: 500 }
        )
      })
    )

    it.effect("random valid EVM lists with unique ids pass; a repeated id is reported at its position", () =>
      Effect.sync(() => {
        fc.assert(
          fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 6 }), (ids) => {
            const conditions = ids.map((id) => ({ ...erc20, id }))
            const aggregator = ids.map((id) => `[${id}]`).join(" and ")
            const ok = Effect.runSyncExit(validateConditions({ conditions, aggregator }))
            if (!Exit.isSuccess(ok)) return false
            const repeated = [...conditions, { ...nativeEvm, id: ids[0] }]
            const failed = Effect.runSyncExit(
              validateConditions({ conditions: repeated, aggregator: `${aggregator} or [1]` })
            )
            if (!Exit.isFailure(failed)) return false
            const reason = failed.cause.reasons[0]
            return (
              reason?._tag === "Fail" &&
              reason.error.message ===
                `Condition validation error: "conditions[${ids.length}]" contains a duplicate value`
            )
          }),
          { numRuns: 300 }
        )
      })
    )
  })
})
