/**
 * The `text` property of every built-in tool's structured result: the whole
 * model-visible text (markers and session notices included), so a client
 * that hands the model only the structured value loses nothing. The raw
 * output streams are not repeated beside it.
 */
export const RESULT_TEXT = Object.freeze({
  type: 'string',
  description: 'The result exactly as the model sees it: output, markers such as [exit code: N], and session notices.',
});
