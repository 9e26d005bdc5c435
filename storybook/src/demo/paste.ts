/** How the play functions enter CIDs, addresses and JSON: as a user pastes them, in one go. */

/** The part of a play function's `userEvent` this needs. */
interface User {
  readonly clear: (element: Element) => Promise<void>
  readonly click: (element: Element) => Promise<void>
  readonly paste: (text: string) => Promise<void>
}

export const paste = async (user: User, element: HTMLElement, text: string): Promise<void> => {
  await user.clear(element)
  await user.click(element)
  await user.paste(text)
}
