// Hardhat Ignition module: the payment contract, the two allow-listed local stablecoins, and the
// EIP-3009 test USDC that x402 uploads are paid in.
// `npm run deploy:local` runs it against `npx hardhat node`; Ignition records the addresses in
// ignition/deployments/chain-31337/deployed_addresses.json.
import { buildModule } from "@nomicfoundation/hardhat-ignition/modules"
import { localTokens } from "../../contracts/abi/deploy.ts"

export default buildModule("LocalPayment", (m) => {
  const owner = m.getAccount(0)
  const payment = m.contract("LighthousePayment", [owner])
  const { usdc: u, dai: d } = localTokens
  const usdc = m.contract("MockStablecoin", [u.name, u.symbol, u.decimals], { id: "USDC" })
  const dai = m.contract("MockStablecoin", [d.name, d.symbol, d.decimals], { id: "DAI" })
  m.call(payment, "updateERC20Token", [usdc, true], { id: "AllowUSDC" })
  m.call(payment, "updateERC20Token", [dai, true], { id: "AllowDAI" })
  const x402Usdc = m.contract("TestUsdc", [], { id: "X402USDC" })
  return { payment, usdc, dai, x402Usdc }
})
