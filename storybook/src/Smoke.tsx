import { useState } from "react"

export const Smoke = () => {
  const [n, setN] = useState(0)
  return (
    <button type="button" onClick={() => setN(n + 1)}>
      clicked {n}
    </button>
  )
}
