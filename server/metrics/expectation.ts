/**
 * What a question expects, and whether an answer holds it: the content checks behind
 * `ignore-expectation` (MMAgents Figure 6: "the response addresses the previous statement, but
 * does not contain the expected content") and behind telling it from `ignore-question` (the
 * question is not even addressed).
 *
 * A wh-question asks for a kind of thing: how many or how much a quantity, when a time, who a
 * person, why a reason. A yes/no question expects a yes or a no, or a hedge of one. An answer that
 * opens by naming the question's topic ("About the rollout: ...", "As for the data, ...") and then
 * says something else addresses it only in form: what follows the lead-in is its `body`.
 *
 * ```ts
 * expectedKind('How many roofs were coated, Nadia?'); // 'quantity'
 * holdsKind('quantity', 'About four thousand.'); // true
 * bodyOf('On the rollout: loggers in 60 homes.'); // 'loggers in 60 homes.'
 * ```
 */

export type ExpectedKind = 'quantity' | 'time' | 'person' | 'reason' | 'polar' | 'open';

/** The last question sentence of a line: "Lovely talk. But how do you separate X?" asks the second. */
export const questionSentence = (text: string): string => {
  const sentences = text.match(/[^.!?]+[.!?]*/g) ?? [text];
  return (sentences.filter((s) => s.trim().endsWith('?')).at(-1) ?? sentences.at(-1) ?? text).trim();
};

/** Auxiliaries that open a yes/no question ("Did landlords have to agree?"). */
const polarOpening = /^(do|does|did|is|are|was|were|am|can|could|would|will|should|shall|has|have|had|may|might|must|isn't|aren't|wasn't|don't|doesn't|didn't|won't|can't|couldn't|wouldn't)\b/i;

export const expectedKind = (question: string): ExpectedKind => {
  // A vocative or a softener before the question proper ("Nadia, sorry, did ...") does not change what it asks.
  const sentence = questionSentence(question)
    .replace(/^(\s*([\p{L}'’]+|so|and|but|honestly|frankly|sorry|now|right|okay|well)\s*,\s*)+/iu, '')
    .replace(/^(sorry|so|and|but|now|then|okay|right|well|honestly|frankly)\s+/i, '');
  if (/\bhow (many|much|long|often|far|big|large|old)\b/i.test(sentence) && !/\bhow much does .* matter\b/i.test(sentence)) return 'quantity';
  if (/^(when|what time)\b|\b(when|what time|which day|what day|how soon)\b[^,]*\?$/i.test(sentence)) return 'time';
  if (/^(who|whom|whose)\b|\bwho\b[^,]*\?$/i.test(sentence)) return 'person';
  if (/^why\b|\bwhy\b[^,]*\?$|\bwhat made you\b/i.test(sentence)) return 'reason';
  if (polarOpening.test(sentence)) return 'polar';
  return 'open';
};

const numberWords =
  /\b(\d|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|thousand|million|half|third|quarter|dozen|few|several|many|most|none|all|every|a lot|little|much|more|less|percent|nobody|no one|once|twice)\b/i;
const timeWords =
  /\b(\d|o'clock|past|morning|afternoon|evening|night|noon|midnight|yesterday|today|tomorrow|tonight|ago|before|after|since|until|during|last|next|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|week|month|year|day|sprint|quarter|then|soon|never|already|later|earlier|when)\b/i;
const personWords =
  /\b(he|she|him|her|they|them|nobody|no one|someone|somebody|everyone|anyone|team|manager|lead|engineer|ops|doctor|nurse|staff|customer|client|owner|people|person|himself|herself|mr|mrs|ms|dr)\b/i;
const reasonWords = /\b(because|since|so that|so|as|due|reason|why|to|for|caused|cause|given|after)\b/i;
/** Yes, no, and their hedges: what answers a yes/no question whatever follows. */
const polarWords =
  /^\W*([\p{L}'’.]+,\s*)?(\w+,\s*)?(yes|no|yeah|yep|nope|not|partly|mostly|maybe|perhaps|probably|possibly|sure|of course|absolutely|definitely|certainly|i think so|i don't think|i doubt|i believe|i guess|i'm not sure|not sure|hard to say|it depends|depends|honestly,? (yes|no)|in short,? (yes|no)|only|never|always|both|neither|either)\b/iu;

/** Whether an answer holds the kind of thing asked (names count as people; "I" does not: "who else?" is seldom answered "I"). */
export const holdsKind = (kind: ExpectedKind, answer: string, names: ReadonlySet<string> = new Set()): boolean => {
  switch (kind) {
    case 'quantity':
      return numberWords.test(answer);
    case 'time':
      return timeWords.test(answer);
    case 'person':
      return personWords.test(answer) || answer.split(/\W+/).some((w) => names.has(w.toLowerCase()));
    case 'reason':
      return reasonWords.test(answer);
    case 'polar':
      return polarWords.test(answer);
    case 'open':
      return true;
  }
};

/**
 * A lead-in that names a topic before the answer proper: "Diego, on the rollout:", "As for the
 * data,", "When it comes to your reminder system,", "About the engineering lead:".
 */
const leadIn =
  /^\s*(([\p{L}'’]+|so|well|okay|right|honestly|frankly|in practice|practically speaking|the short version|concretely)\s*,\s*)*(about|as for|on|when it comes to|regarding|coming back to|picking up( on)?|thinking about|since you mention|on the subject of)\s+[^:,;.]{1,60}[:,;]\s*/iu;

/** What an answer says after any lead-in naming the question's topic. */
export const bodyOf = (answer: string): string => answer.replace(leadIn, '');

/** Whether the answer opens with a lead-in (it addresses the question in form, at least). */
export const hasLeadIn = (answer: string): boolean => leadIn.test(answer);
