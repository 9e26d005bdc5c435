/**
 * Signs a wallet in to both halves of the service: the key nodes (their auth message, signed,
 * buys a JWT for key shards and access rules) and the API (its auth message, signed, buys an API
 * key for uploads, usage and IPNS). Each message is shown as the wallet is asked to sign it.
 */
import { Effect, Redacted } from "effect"
import { Auth, type Signer } from "lighthouse-effect"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { DetailsList } from "../ui/DetailsList.tsx"
import { short } from "../ui/format.ts"

export interface SignInProps {
  /** The wallet to sign in with (a browser wallet through `Signer.layerFromEip1193` in an app). */
  readonly signer: Signer.Service
  /** Called with the tokens once both are issued. */
  readonly onSignedIn?: (session: {
    readonly jwt: Redacted.Redacted<string>
    readonly apiKey: Redacted.Redacted<string>
  }) => void
}

const signIn = Effect.fnUntraced(function* (signer: Signer.Service) {
  const auth = yield* Auth.Auth
  const nodeMessage = yield* auth.nodeMessage(signer.address)
  const { token: jwt } = yield* auth.jwt({ address: signer.address, signature: yield* signer.signMessage(nodeMessage) })
  const apiMessage = yield* auth.apiAuthMessage(signer.address)
  const apiKey = yield* auth.apiKey({ publicKey: signer.address, signedMessage: yield* signer.signMessage(apiMessage) })
  return { nodeMessage, jwt, apiMessage, apiKey }
})

export const SignIn = ({ signer, onSignedIn }: SignInProps) => {
  const call = useEffectCall(signIn)
  const start = async () => {
    const exit = await call.run(signer)
    if (exit._tag === "Success") onSignedIn?.({ jwt: exit.value.jwt, apiKey: exit.value.apiKey })
  }
  return (
    <section className="lh-card" aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">Sign in</h2>
      <p>
        Wallet <code>{signer.address}</code>
      </p>
      <button type="button" onClick={start} disabled={call.state === "running"}>
        Sign in with {short(signer.address)}
      </button>
      <CallStatus call={call} running="Waiting for signatures…" success="Signed in." />
      {call.state === "success" && (
        <DetailsList
          label="Session"
          rows={[
            { term: "Key-node message", detail: call.value.nodeMessage },
            // Tokens are secrets: only their ends are shown.
            { term: "JWT", detail: <code>{short(Redacted.value(call.value.jwt), 12)}</code> },
            { term: "API message", detail: call.value.apiMessage },
            { term: "API key", detail: <code>{short(Redacted.value(call.value.apiKey), 8)}</code> }
          ]}
        />
      )}
    </section>
  )
}
