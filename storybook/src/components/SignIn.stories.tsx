import { Redacted } from "effect"
import { expect, fn } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { alice, bob, impostor } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { SignIn } from "./SignIn.tsx"

const meta = preview.meta({
  title: "Flows/Sign in",
  component: SignIn,
  args: { signer: alice.signer, onSignedIn: fn() },
  beforeEach: startDemo(),
  decorators: [withDemoRuntime]
})

export const SignsIn = meta.story({
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: "Sign in with 0x7099…79c8" }))
    const session = await canvas.findByLabelText("Session")
    await expect(session).toHaveTextContent("Please sign this message to prove you are owner of this account: ")
    await expect(session).toHaveTextContent(
      `Please prove you are the owner of this account by signing this message. Address: ${alice.address}`
    )
    await expect(session).toHaveTextContent(/JWTjwt:eyJhbGci…/)
    // The network issued one API key more for Alice, the one shown.
    const keys = [...demo().network.state.accounts.get(alice.address)!.apiKeys]
    await expect(keys).toHaveLength(2)
    await expect(session).toHaveTextContent(`API key${keys[1]!.slice(0, 8)}…${keys[1]!.slice(-4)}`)
    // The app gets both tokens, still redacted.
    await expect(args.onSignedIn).toHaveBeenCalledOnce()
    const [tokens] = (args.onSignedIn as ReturnType<typeof fn>).mock.calls[0] as [
      { jwt: Redacted.Redacted<string>; apiKey: Redacted.Redacted<string> }
    ]
    await expect(Redacted.value(tokens.apiKey)).toBe(keys[1])
    await expect(String(tokens.jwt)).not.toContain("jwt:")
  }
})

/** The wallet signs with another account's key: the key nodes refuse the JWT. */
export const WrongSignature = meta.story({
  args: { signer: impostor(alice, bob) },
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: /Sign in/ }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Invalid Signature")
  }
})

export const KeyNodesDown = meta.story({
  beforeEach: () => {
    demo().network.faults.down({ host: "encryption" })
  },
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: /Sign in/ }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Key nodes: fetch failed")
  }
})

export const ApiFailing = meta.story({
  beforeEach: () => {
    demo().network.faults.status({ host: "api" }, 500)
  },
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: /Sign in/ }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("HTTP error! status 500")
  }
})
