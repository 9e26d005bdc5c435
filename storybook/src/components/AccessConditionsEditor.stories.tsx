import { expect } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { uploadEncrypted } from "../demo/arrange.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { paste } from "../demo/paste.ts"
import { alice, bob } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { AccessConditionsEditor } from "./AccessConditionsEditor.tsx"

/** Alice's encrypted file, uploaded before each story. */
let cid = ""

const meta = preview.meta({
  title: "Flows/Access conditions",
  component: AccessConditionsEditor,
  args: { signer: alice.signer },
  beforeEach: [
    startDemo(),
    async () => {
      cid = await uploadEncrypted(alice, new File(["members only"], "report.txt"))
    }
  ],
  decorators: [withDemoRuntime]
})

const check = "The conditions are valid."
const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3"

export const EvmInForm = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    // An ERC20 condition needs its contract: the form says so before anything is sent.
    await expect(canvas.getByText(/^Condition validation error/)).toHaveTextContent(
      'Condition validation error: "conditions[0].contractAddress" is required'
    )
    await expect(canvas.getByRole("button", { name: "Apply on the key nodes" })).toBeDisabled()
    await paste(userEvent, canvas.getByLabelText("Contract address"), usdc)
    await expect(canvas.getByText(check)).toBeVisible()
    await userEvent.click(canvas.getByRole("button", { name: "Apply on the key nodes" }))
    await expect(await canvas.findByText("Applied on all 5 key nodes.")).toBeVisible()
    const applied = canvas.getByLabelText("Conditions on the key nodes")
    await expect(applied).toHaveTextContent(`Owner${alice.address}Chain typeEVMConditions1Aggregator(none)`)
    // Every node holds the condition as typed.
    for (const node of demo().network.state.keyNodes.nodes)
      await expect(node.files.get(cid)?.conditions).toEqual([
        {
          id: 1,
          chain: "Ethereum",
          method: "balanceOf",
          standardContractType: "ERC20",
          contractAddress: usdc,
          parameters: [":userAddress"],
          returnValueTest: { comparator: ">=", value: 1000000 }
        }
      ])
  }
})

const twoConditions = JSON.stringify(
  [
    {
      id: 1,
      chain: "Ethereum",
      method: "getBalance",
      standardContractType: "",
      parameters: [":userAddress"],
      returnValueTest: { comparator: ">=", value: "1000000000000000000" }
    },
    {
      id: 2,
      chain: "Ethereum",
      method: "getBlockNumber",
      standardContractType: "",
      parameters: [],
      returnValueTest: { comparator: ">", value: 0 }
    }
  ],
  null,
  2
)

/** Errors appear as the JSON is edited, in the key nodes' own words, and block the request. */
export const InvalidConditionJson = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("radio", { name: "JSON" }))
    const editor = canvas.getByLabelText("Conditions (JSON)")
    const status = canvas.getByText(/valid/)
    await paste(userEvent, editor, '[{"id": 1, "chain": "Ethereum", "method": "balanceOf", "standardContractType": ""')
    await expect(status).toHaveTextContent(/^Conditions are not valid JSON: /)
    await userEvent.paste(', "returnValueTest": {"comparator": ">=", "value": 1}}]')
    await expect(status).toHaveTextContent(
      'Condition validation error: "conditions[0].method" must be one of [getBalance, getBlockNumber]'
    )
    await expect(editor).toHaveAttribute("aria-invalid", "true")
    await expect(canvas.getByRole("button", { name: "Apply on the key nodes" })).toBeDisabled()
  }
})

/** Two conditions need an aggregator saying how they combine. */
export const TwoConditionsJson = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("radio", { name: "JSON" }))
    const status = canvas.getByText(/valid/)
    await paste(userEvent, canvas.getByLabelText("Conditions (JSON)"), twoConditions)
    await expect(status).toHaveTextContent('Condition validation error: "aggregator" is required')
    await expect(canvas.getByRole("button", { name: "Apply on the key nodes" })).toBeDisabled()
    await paste(userEvent, canvas.getByLabelText(/Aggregator/), "([1] and [2])")
    await expect(status).toHaveTextContent(check)
    await userEvent.click(canvas.getByRole("button", { name: "Apply on the key nodes" }))
    await expect(await canvas.findByLabelText("Conditions on the key nodes")).toHaveTextContent(
      "Conditions2Aggregator([1] and [2])"
    )
  }
})

export const Solana = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.selectOptions(canvas.getByLabelText("Chain type"), "SOLANA")
    const chain = canvas.getByLabelText("Chain")
    await userEvent.clear(chain)
    await userEvent.type(chain, "mainnet-beta")
    await expect(canvas.getByText(/^Condition validation error/)).toHaveTextContent(
      'Condition validation error: "conditions[0].chain" must be one of [DEVNET, TESTNET, MAINNET]'
    )
    await userEvent.clear(chain)
    await userEvent.type(chain, "MAINNET")
    await userEvent.click(canvas.getByRole("button", { name: "Apply on the key nodes" }))
    await expect(await canvas.findByLabelText("Conditions on the key nodes")).toHaveTextContent(
      "Chain typeSOLANAConditions1"
    )
  }
})

export const Coreum = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.selectOptions(canvas.getByLabelText("Chain type"), "COREUM")
    await expect(canvas.getByText(check)).toBeVisible()
    await userEvent.click(canvas.getByRole("button", { name: "Apply on the key nodes" }))
    await expect(await canvas.findByLabelText("Conditions on the key nodes")).toHaveTextContent(
      "Chain typeCOREUMConditions1"
    )
  }
})

export const Radix = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.selectOptions(canvas.getByLabelText("Chain type"), "RADIX")
    await expect(canvas.getByText(check)).toBeVisible()
    await userEvent.click(canvas.getByRole("button", { name: "Apply on the key nodes" }))
    await expect(await canvas.findByLabelText("Conditions on the key nodes")).toHaveTextContent(
      "Chain typeRADIXConditions1"
    )
  }
})

/** Bob is not the file's owner: the key nodes refuse to change its conditions. */
export const AccessDenied = meta.story({
  args: { signer: bob.signer },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await paste(userEvent, canvas.getByLabelText("Contract address"), usdc)
    await userEvent.click(canvas.getByRole("button", { name: "Apply on the key nodes" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Access Denied")
  }
})

export const KeyNodeDown = meta.story({
  beforeEach: () => {
    demo().network.faults.down({ host: "encryption", node: 2 })
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await paste(userEvent, canvas.getByLabelText("Contract address"), usdc)
    await userEvent.click(canvas.getByRole("button", { name: "Apply on the key nodes" }))
    const alert = await canvas.findByRole("alert")
    await expect(alert).toHaveTextContent("Key node 2: fetch failed")
    await expect(alert).toHaveTextContent("Already changed on key nodes 1, 3, 4, 5.")
  }
})
