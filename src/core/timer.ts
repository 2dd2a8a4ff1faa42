/**
 * The longest delay `setTimeout` honours (2^31 − 1 ms, about 24.8 days); a
 * longer one fires at once. Every timeout config and argument is capped here.
 */
export const MAX_TIMER_MS = 2_147_483_647;
