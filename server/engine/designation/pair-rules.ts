/**
 * Stage 3 of detectDesignation (index.ts): what a first pair part looks like. The five pair types
 * the engine acts on (question, request, offer, greeting, invitation; MMAgents §3.2.4 asks an LLM
 * for the same) are regular expressions anchored where a clause, or a part of an unpunctuated
 * clause, starts (`pairAt`), plus clause-wide patterns that need not start it ("..., isn't it",
 * "I think it's your turn"). N stands for any participant's name (a `qqn<i>` token, tokens.ts).
 *
 *   pairAt('can you send the deck', true, false); // 'request'
 *   pairAt('what did the client say', true, true); // 'question'
 */
import type { PairType } from '../../../shared/events';
import { AUX_WORDS, words } from './lexicon';

export const N = 'qqn\\d+';
export const WH = '(?:what|where|when|why|how|who|whom|which|whose)';
export const AUX = `(?:${[...AUX_WORDS].join('|')})`;
const YOU = '(?:you|u|ya)';
export const PLURAL_YOU =
  '(?:yall|you all|you guys|you two|you both|you three|you folks|you lot|both of you|all of you|any of you|one of you|either of you|each of you|some of you|none of you)';
const GROUP = `(?:${PLURAL_YOU}|anyone|anybody|someone|somebody|everyone|everybody|no one|nobody|people|folks)`;
const ADDRESSEE = `(?:${GROUP}|${YOU})`;
const SUBJECT = `(?:${ADDRESSEE}|we|i|they|he|she|it|this|that|there|these|those|${N}|one|all|each|either|neither)`;
const DET = '(?:the|a|an|our|your|my|his|her|their|its|any|every|everything|anything|something|nothing|both)';
const ADV = '(?: (?:please|kindly|just|also|maybe|possibly|quickly|perhaps|actually|still|ever|even|now|again|briefly|real quick|by any chance))*';
const THOUGHTS =
  '(?:thoughts|views?|perspectives?|opinions?|ideas|take|update|story|stories|experiences?|reflections|insights|feedback|impressions|findings|results|side|answer)';
const FOOD =
  '(?:coffee|tea|water|cookies?|cake|snacks?|drinks?|biscuits?|bite|slice|piece|pizza|sandwich(?:es)?|refill|juice|beer|wine|fruit|dessert|donuts?|doughnuts?|croissants?|bagels?|chocolate|mints?|gum|lunch|breakfast|dinner|something to (?:eat|drink)|rice|soup|bread|salad|pasta|curry|cheese|fries|chips|crisps|potatoes|seconds|pie|tart|ice cream|popcorn|nuts|pastry|pastries|cupcakes?|muffins?|candy|sweets|lemonade|soda|milk|cocoa)';
const NEG_AUX = '(?:isnt|arent|wasnt|werent|dont|doesnt|didnt|havent|hasnt|hadnt|cant|couldnt|wont|wouldnt|shouldnt)';
/** Taking the floor, as opposed to taking a task: "would you like to go next" invites, "... to lead the retro" offers. */
const FLOOR_VERB =
  '(?:(?:take|talk|run|walk) (?:us|me|everyone|them|the group|the room) through|take (?:this|that|the) (?:one|question|next (?:one|question))|field (?:this|that|the) (?:one|question)|read (?:it |that |this )?(?:out|aloud)|read (?:the|this|that|our|your) (?:next |first |last )?(?:dialogue|passage|paragraph|poem|question|text|lines?|part|section|sentence|story|answer|essay|excerpt|extract|verse|message|letter|intro|introduction|announcements?|minutes|agenda|results|names|report|statement|comment)|try(?= *$)|have a try|give it a (?:go|try|shot)|go (?:first|next|ahead|on|now|last|second|third|after \\w+)|go(?! (?:to|get|grab|home|out|back|with|for)\\b)|(?:start|begin)(?! (?:the|a|an|working|on|writing|building|using))|kick(?: us| things)? off|say|speak|add|comment|share|respond|reply|answer|present|weigh in|chime in|jump in|pitch in|take the floor|introduce|continue|talk|tell (?:us|me|everyone|the group)|walk us|elaborate|expand|explain|ask|raise|lead off|open|sum up|wrap up|give us|react|follow up|make (?:a|an|your|the|some|any|a few)(?: (?:opening|closing|short|brief|final|quick|few))? (?:point|comment|statement|remarks?|case|pitch|speech|toast|announcement)|show (?:us|them|everyone|the group|the room|the team|the panel)|demo|demonstrate|close (?:us|things|the session|the meeting|the show) (?:out|off)|(?:plug|pitch|promote) (?:your|the|it|that|this)|say (?:hi|hello|a few words)|(?:come|step|get) (?:up|in|forward|on \\w+|to the \\w+) and (?:say|share|tell|introduce|talk)|have a go)';
const FLOOR_ACT = new RegExp(
  `^(?:go (?:first|next|ahead|on)|start us off|kick (?:us |things )?off|get us started|take the floor|say a few words|introduce (?:yourself|yourselves)|share (?:your|some|any) ${THOUGHTS}|(?:tell|give) (?:us|me|everyone|the group) (?:a bit |a little |a little bit |more |some more )?about|(?:start|begin|kick (?:us |things )?off|open) (?:by|with) (?:telling|introducing|sharing|giving|saying|walking|talking|describing)|tell (?:us|me) what you think|jump in|chime in|weigh in|lead off|(?:continue|carry on|keep going|proceed|start|begin)$)`,
);

const rule = (source: string): RegExp => new RegExp(`^(?:${source})\\b`);

export const HOW_ARE_YOU = new RegExp(
  `^(?:how (?:are|r) (?:${PLURAL_YOU}|you|u|ya|things|everyone)|how(?:s| is) (?:it going|everyone|everybody|life)|how (?:have|ve) you been|howve you been|how you doing|whats up|sup)(?: doing| today| all| guys| both| holding up| feeling| this morning| keeping| going)*(?: ${N}(?: and ${N})*| everyone| everybody| all| guys| folks| team)?$`,
);

export const GREETING = rule(
  [
    'good (?:morning|afternoon|evening|day|night)',
    // Not the answer "morning please" or "evening works".
    `(?:morning|afternoon|evening|night)(?= ${N}| everyone| all| guys| folks| team| (?!(?:please|works|is|would|sounds|then|slot|shift|session)$)\\w+$|$)`,
    'long time no see',
    '(?:ill|i will|we will|well) see (?:you|ya|u)(?: (?:all|guys|both|everyone|everybody))?(?: (?:tomorrow|soon|later|then|next|this|on|in|at|after|around|tonight)\\b.*)?$',
    'hi|hello|hey|hiya|heya|howdy|greetings|yo|welcome|bye|goodbye|good bye|bye bye|see (?:you|ya)|take care|goodnight|farewell',
    // Leave-takings: "talk to you tomorrow", "drive safe", "safe travels".
    '(?:talk|speak|chat) (?:to (?:you|ya|u) )?(?:soon|later|tomorrow|tmrw|next (?:week|time|month)|then|on \\w+day)|catch (?:you|ya|u) later|later (?:all|everyone|guys)',
    '(?:drive|travel|get home|fly|ride|cycle|walk home) safe(?:ly)?|safe (?:travels|trip|flight|journey|drive|ride|home)',
    // Greetings said in other languages in mixed-language rooms.
    'hola|buen(?:os|as) (?:dias|tardes|noches)|hasta (?:luego|manana|pronto|la vista|la proxima)|adios|chao|ciao|bonjour|bonsoir|salut|au revoir|a bientot|hallo|guten (?:morgen|tag|abend)|tschuss|auf wiedersehen|servus|moin|buongiorno|buonasera|arrivederci|namaste|salaam|salam|shalom|konnichiwa|ohayo|sayonara|annyeong|ni hao|ola|bom dia|boa (?:tarde|noite)|tchau|hej|god morgon|dzien dobry|privet|merhaba|jambo|habari',
    `(?:(?:its|it is|so|very|really|it was|was) )?(?:nice|good|great|lovely|pleased|glad|wonderful) to (?:meet|see|have) (?:you|${GROUP}|${N})`,
    `(?:(?:it was|was|its been|it has been|been) )?(?:(?:so|very|really) )?(?:nice|good|great|lovely|a pleasure|wonderful) (?:meeting|seeing|talking to|chatting with|working with) (?:you|${GROUP}|${N})`,
    '(?:thanks|thank you|thank u)(?: (?:so much|very much|all|everyone|both|again|guys|folks|a lot))* for (?:joining|coming|being here|your time|making it|attending|taking the time|making (?:the |some )?time|meeting with (?:me|us)|sitting down with (?:me|us)|dialing in|dialling in|jumping on|hopping on|getting on|showing up|being with us|tuning in|stopping by|dropping by|popping in|listening|watching|calling|visiting|coming by)',
    `(?:im |i am |were |so )?(?:glad|happy|great|so glad) (?:that )?(?:you|${N}|${GROUP}) (?:could|can|were able to|made it|came|joined|are here|re here)`,
    '(?:have a (?:(?:very|really|nice|good|great|lovely|wonderful|quiet|safe|restful|relaxing|fun|happy|fantastic|peaceful|productive|well deserved) )+|enjoy (?:the|your) (?:(?:nice|good|lovely|long|well deserved) )*)(?:day|weekend|evening|night|one|week|trip|holiday|holidays|break|vacation|shift|flight|lunch|rest of (?:the|your) (?:day|week|evening))',
  ].join('|'),
);

const OFFER = rule(
  [
    // Not "can I grab you for two minutes", which asks for the person's time.
    `(?:can|could|may|shall|should) i (?:get|grab|bring|fetch|pour|make|offer|order|buy|find|show|send|give|lend|pass|hand|email|forward) (?:${ADDRESSEE}|${N}|either|both)(?= \\w)(?! (?:for|after|before|later|quickly|real|tomorrow|today|tonight|at|in|on|when|once|sometime|briefly)\\b)`,
    '(?:can|could|may) i (?:help|assist)',
    'shall i',
    // "I can offer you a credit", "chase i'll trade you two sheep for a brick".
    `(?:i|we|id|ill|wed|well)(?: (?:can|could|would like to|like to|want to|will|am happy to|m happy to))? offer (?:${ADDRESSEE}|${N})`,
    `(?:ill|i will|i can|i could|id|i would|well|we will|we can|we could) (?:trade|swap|sell|lend|loan) (?:you|u|${N})`,
    'should i (?:send|share|take|grab|get|bring|book|order|start|set up|make|call|email|draft|write|prepare|schedule|organi[sz]e|print|forward|circulate|handle|pick up|put together|reserve|invite|host|drive|lead|present|update|fix|cover)',
    '(?:do you |would you |you )?(?:want|wanna|like|need) me to',
    '(?:how about|what if) i',
    `(?:how|what) about (?:some |a |another |more )?${FOOD}`,
    '(?:what|how) can i (?:get|do|help)',
    'is there anything (?:else )?(?:i|we) can',
    'anything (?:else )?(?:i|we) can (?:do|get|help)',
    `let me (?:get|grab|bring|fetch|pour|make|show|help|send|give|find|order|buy|pull up|print|walk) (?:${ADDRESSEE}|${N})`,
    'let me help(?: out)?$',
    // "I'm happy to take notes" (not "I'm happy to report that ..."); a bare "happy to" answers.
    `(?:im|i am|id be|i would be|ill be|i will be|were|we are|wed be|we would be)(?: (?:more than|really|very|always|also|totally|absolutely|definitely|so))? (?:happy|glad|willing|keen) to (?!(?:hear|say|report|announce|see|be|meet|know|confirm|share that|tell you that|help$|bet|admit|concede|accept|wait|listen|go along|agree|learn|discuss|talk|chat)\\b)\\w+`,
    '(?:let me|i can|i could|ill) (?:take|get) (?:that|it|this|those|these) off your plate',
    `care for (?:some |a |another |more )?${FOOD}`,
    `let me know if (?:${ADDRESSEE}|${N}) (?:need|needs|want|wants) (?:anything|help|a hand|any help|me to|something)`,
    'need (?:a hand|any help|help|anything|a ride|a lift|a copy)',
    '(?:want|wanna|fancy|need) (?:some|a|an|another|more|any)',
    `(?:please )?(?:help yourself|help yourselves|have|take|grab) (?:(?:to|some|a|another|more|a bit of|a little|a piece of|a slice of) )*(?:seat|chair|${FOOD})`,
  ].join('|'),
);

/** Pointing at someone in the audience: "yes, you in the blue shirt", "the gentleman in the front row". */
export const POINTED =
  '(?:you|the (?:gentleman|gentlemen|lady|ladies|woman|women|man|men|person|guy|gal|young (?:man|woman|lady)|one|folks?|people|hand|colleague|student)) (?:in|at|with|on|over|by|near|up|down|wearing|holding|right) (?:the|a|an|there|front|back|here|middle|left|right)\\b';

const INVITATION = rule(
  [
    POINTED,
    '(?:please |so |ok |okay |now )?(?:go ahead|go on|carry on|keep going|go first|go next)',
    '(?:please )?(?:continue|proceed)(?: please)?$',
    'you (?:go |roll |play |move |bat |bowl |shoot |draw |deal |pick |throw )?(?:first|next)',
    '(?:you )?(?:can|may|could) (?:go ahead|start|begin|go first|go next|continue|proceed|take it away|take the floor|kick us off|start us off)',
    'feel free to (?:go ahead|start|begin|jump in|chime in|weigh in|speak|share|respond|add|comment|ask|continue|introduce)',
    '(?:please )?(?:introduce (?:yourself|yourselves)|say a few words|take the floor|start us off|kick (?:us|things) off|get us started|jump in|chime in|weigh in)',
    `(?:please )?(?:share|give us|tell us) (?:your|some|any|a few) ${THOUGHTS}`,
    '(?:please )?tell (?:us|me|everyone|the group) (?:a bit |a little |a little bit |more |some more )?about',
    // "Is there anything you'd like to add?", "anything else from you?"
    '(?:is there )?anything (?:else )?(?:you d|youd|you would|u d|you|u) (?:would )?(?:like|want|wanna|wanted|care) to (?:add|say|share|ask|mention)',
    `anything (?:else |more |further )?(?:from (?:you|${N})|to add)(?: (?:you|${N}))?$`,
    // "Please begin your presentation whenever you're ready."
    '(?:please )?(?:begin|start|go ahead|proceed|continue|present|fire away)\\b.*\\b(?:whenever|when|once) (?:you|u)(?:re| are| re| r) ready$',
    `(?:lets|let us) (?:hear|start with (?:you|${N})|begin with (?:you|${N})|go to|turn to|go around)`,
    '(?:whos|who is) (?:next|up|first|going (?:first|next)|starting)',
    // "Anything else before we wrap up?": the last call for the floor before closing.
    '(?:is there |does (?:anyone|anybody) have |(?:anyone|anybody) (?:have |got )?)?anything (?:else|more|further)(?: (?:from anyone|from anybody|from the (?:group|team|room)|anyone|to add))? before (?:we|i) (?:wrap|close|finish|end|stop|move on|go|sign off|break|adjourn|hang up|call it)',
    'last but not least',
    `care to ${FLOOR_VERB}`,
    `next (?:up )?(?:is |will be )?${N}`,
    '(?:(?:ok|okay|alright|right|yes|so) )*next (?:question|questions|speaker|caller|person|hand|one)(?: please)?$',
    'anything (?:else )?(?:you d|youd|you would|u d) (?:like|want|care) to (?:add|say|share|ask)',
    'anything (?:else )?(?:you|u) (?:want|wanna|wanted) to (?:add|say|share|ask)',
    'you (?:wanted|want|wanna|were going|were about) to (?:say|add|ask|share|comment|mention|respond|jump in|chime in|make a)',
    'you (?:had|have) (?:something|a question|a comment|a point|your hand up)',
    `(?:over|back) to (?:you|${N})`,
    `(?:why dont you|why not) ${FLOOR_VERB}`,
  ].join('|'),
);

const REQUEST = rule(
  [
    `(?:(?:i|we) (?:need|would like|want|would love|really need)|(?:id|wed) (?:like|love|really like)) (?:${ADDRESSEE}|${N}) to`,
    `(?:i|we|id|wed)(?: would)? (?:really )?appreciate (?:it )?if (?:${ADDRESSEE}|${N}) (?:could|can|would)`,
    `(?:it would|it d|itd|would|that would|thatd|it will|itll|it might) be (?:great|helpful|nice|good|awesome|amazing|useful|lovely|fantastic|perfect|ideal|brilliant|super helpful|really helpful) if (?:${ADDRESSEE}|${N}) (?:could|can|would|might)`,
    `if (?:${ADDRESSEE}|${N}) (?:could|can|would|might)(?: please| just| also| maybe| quickly)* \\w+`,
    `(?:i (?:was|am)|im|just|was) (?:wondering|hoping) if (?:${ADDRESSEE}|${N}) (?:could|can|would|might)`,
    `(?:would|do|does) ${ADDRESSEE} mind`,
    `(?:would|will) ${YOU} be (?:able|willing|so kind|kind enough)`,
    `(?:would|is) it (?:be )?possible (?:for (?:you|${N}) )?to`,
    // Asking permission: "can I borrow your slides", "may we start".
    '(?:can|could|may|might) (?:i|we)(?: please| just| quickly| also| maybe)* (?!be\\b|ask (?:(?:you|qqn\\d+) )?(?:if|whether|what|how|why|when|where|who|which)\\b)\\w+',
    `let (?:me|us|${N}|him|her|them|everyone) know`,
    'make sure|dont forget|do not forget|remember to|be sure to|please remember',
    `(?:you|u) (?:need|have|ve got|got|must|ll need|will need|ll have|will have) to`,
    `why dont ${YOU} \\w+`,
    'have a look',
    '(?:maybe|perhaps) (?:you|u) (?:could|can|would|might want to|should)',
    '(?:is it|would it be|will it be|its) (?:ok|okay|alright|all right|fine|cool) if (?:i|we)',
  ].join('|'),
);

const INDIRECT_QUESTION = rule(
  [
    // "So the real question, Amara, is whether ...": the question announced, then put to someone
    // ("The question is whether we can afford it." in one breath only muses).
    `(?:the|one|my|our) (?:(?:real|big|main|key|only|obvious|burning|bigger|important|million dollar|open|remaining|first|last|next) )?question(?: (?:for|to) (?:you|${N}))?$`,
    '(?:(?:i|we)(?: was| am| m| were| are| re)?(?: just| really| also)? (?:wondering|curious)|(?:just )?(?:wondering|curious)|i wonder) (?:if|whether|what|how|why|when|where|who|which)',
    '(?:(?:i|we)(?: would)?|id|wed) (?:like|love|want|wanted) to (?:know|understand|ask|check|confirm|clarify)',
    '(?:i|we) (?:have|ve got|got|had) (?:a|one|another|one more|a quick|a small|a follow up|a followup|some|a couple of|two|a few) (?:quick |small |follow up |followup |more )?questions?',
    '(?:my|one|a|quick|another|last|final|small|follow up|followup)(?: quick| small| last| final| more)? question',
    '(?:please )?tell (?:me|us)(?: please)? (?:if|whether|what|how|why|when|where|who|which)',
    'let me ask',
    // "May I ask Councillor Morgan what consultation was done?"
    `(?:can|could|may|might) (?:i|we) (?:just |quickly |also )?ask (?:(?:you|${N}) )?(?:if|whether|what|how|why|when|where|who|which)`,
    '(?:just )?(?:to (?:check|confirm|clarify|double check)|checking|quick check|sanity check)',
  ].join('|'),
);

const WH_QUESTION = rule(
  [
    `(?:how|what) about (?:you|u|yourself|${N})`,
    `${WH}(?: (?:else|exactly|then|now|again))? ${AUX}`,
    'whats|whos|wheres|whens|whys|hows|whatre|whatd|whod|howd|whered|wholl|whatll|whove|whatve|howre|whyd|whaddya|whatcha',
    'how (?:many|much|long|often|far|come|big|soon|old|well|close|sure|confident|likely|bad|good|fast|quickly|exactly|else|so)',
    // "whose turn is it", "which room are we in"
    `(?:which|whose) \\w+(?: \\w+)? ${AUX} (?:${SUBJECT}|${DET})`,
    `(?:what|which|whose) (?:time|day|date|kind|sort|type|ones?|versions?|options?|number|part|parts|way|size|colou?r|room|file|slide|page|model|approach|team|person|project|tool|week|month|year|price|budget|percentage|data|design|plan|steps?|format|deadline|topic|questions?|issues?|problems?|changes?) (?:${AUX}|of)`,
    'who (?:wants|has|knows|needs|else|agrees|disagrees|thinks|remembers|took|wrote|made|sent|owns|handles|gets|volunteers)',
    // "who left the milk out": who did it is asked, not said.
    'who (?:left|took|ate|broke|said|did|saw|told|wrote|put|forgot|drank|stole|moved|won|lost|got|sent|came|used|finished|spilled|spilt|invited|booked|ordered|called|started|turned|unplugged|deleted|\\w+ed)\\b',
    '(?:what|who) (?:happened|happens|changed|went|made|makes|brought|brings|led|caused|worked|works|surprised|stood|got|gets|drew|draws|inspired|inspires|motivated|motivates|prompted|kept|keeps|convinced|sparked|drove|drives|pushed|sold|struck|stands out|stood out|excites|excited|worries|worried|scares|scared|helped|helps)',
    'what if|why not|how about|what about',
  ].join('|'),
);

const AUX_QUESTION = rule(
  [
    `(?:is|are|was|were|isnt|arent|wasnt|werent) (?:${SUBJECT}|${DET})`,
    'am i',
    `(?:do|dont) (?:${ADDRESSEE}|we|they|i|${N}|any of|these|those)`,
    // Not "did it yesterday", the answer that drops its "I".
    `(?:does|doesnt|did|didnt|has|had|hasnt|hadnt) (?:${SUBJECT}|the|this|that|these|those|your|my|our|his|her|their|its)(?! (?:yesterday|today|already|again|earlier|before|last|myself|ourselves|too|once|twice)\\b)`,
    `(?:have|havent) (?:${ADDRESSEE}|we|they|i|${N})`,
    `(?:can|could|will|would|should|shall|may|might|must|cant|couldnt|wont|wouldnt|shouldnt) (?:${SUBJECT}|${DET})`,
  ].join('|'),
);

/** Speech recognition drops the auxiliary: "rosa you there", "you ready". */
const BARE_YOU_QUESTION = new RegExp(
  `^(?:${PLURAL_YOU}|you|u|everyone|everybody) (?:still |all )?(?:(?:got|have) (?:a (?:quick )?(?:sec|second|minute|min|moment)|(?:some |a little )?time)\\b|(?:there|ready|ok|okay|alright|good|sure|back|with me|with us|around|free|busy|done|awake)(?:$| (?:to|for|with|at|on|yet|now)\\b)|\\w+ing\\b)`,
);
/** "kofi your ankle okay": a yes/no question about someone's own state, auxiliary dropped. */
const BARE_YOUR_QUESTION = /^your (?!(?:is|are|was|were|looks|seems|feels)\b)\w+(?: (?!(?:is|are|was|were|looks|seems|feels|s)\b)\w+)? (?:still )?(?:ok|okay|alright|all right|good|better|fine|sorted|ready|done|working|holding up|feeling better)$/;
/** "anyone seen my keys": a question to the group without its auxiliary. */
const BARE_GROUP_QUESTION = /^(?:anyone|anybody|everyone|everybody|someone|somebody) (?:seen|got|know|have|heard|tried|noticed|checked|ready|free|around|else)\b/;

const OPEN_QUESTION = rule(
  `any (?:idea|clue|chance|word)|(?:any|your) (?:${THOUGHTS}|questions|comments|objections|concerns|ideas|luck|news|updates|progress|reactions|input|suggestions|takers|volunteers|corrections|amendments|additions|announcements|blockers|other (?:questions|thoughts|comments|business))|thoughts|anything (?:else|to add|from|on)`,
);

const IMPERATIVE_VERBS =
  'roll|sit|stand|stay|stick|watch|guard|defend|shoot|box out|hold down|come (?:here|in|over|back|sit)|empty|state|enter|choose|name|list|spell|translate|solve|calculate|conjugate|answer|define|label|circle|underline|highlight|sketch|draw|measure|lock|unlock|pull|mark|note|log|lead|chase|escalate|page|assign|triage|investigate|reproduce|rerun|revert|roll back|sign off|sign up|set up|look into|send|share|forward|email|mail|post|upload|download|give|pass|hand|bring|grab|fetch|take|put|set|move|open|close|shut|turn|switch|start|stop|pause|mute|unmute|check|look|review|read|write|draft|type|fill|sign|print|copy|paste|add|remove|delete|drop|update|fix|change|edit|rename|book|schedule|reschedule|cancel|call|phone|ring|ping|text|message|remind|keep|finish|complete|prepare|organi[sz]e|arrange|handle|cover|sort|summari[sz]e|recap|record|jot|show|walk|present|run|test|try|help|follow|reach|contact|circulate|distribute|collect|speak|slow|repeat|explain|clarify|elaborate|expand|describe|confirm|double check|tell|join|get|find|order|pick|loop|cc|include|invite|ask|raise|lower|flag|save|submit|approve|merge|push|deploy|install|restart|refresh|reload|zoom|scroll|click|hop|clean|tidy|make|hurry|note down|write down|go get';
export const IMPERATIVE = new RegExp(
  `^(?:(?:please|kindly|just|pls|plz) )*(?:(?:stop|keep|start|quit) \\w+ing|listen|do (?:me|us) a (?:favou?r|solid)|(?:${IMPERATIVE_VERBS}) (?:me|us|him|her|them|it|this|that|these|those|the|a|an|my|your|our|his|their|its|some|any|all|everyone|everybody|up|out|over|back|down|in|on|off|through|around|to|with|for|again|yourself|yourselves|now|quickly|here|there|at|into|what|how|if|whether|when|where|why|who|which|more|something|anything|one|another|both|each|question|page|chapter|number|step|line|exercise|problem|slide|section|item|option|${N}))\\b`,
);
const YOU_TASK = new RegExp(
  `^(?:you|u) (?:take|grab|handle|cover|guard|watch|mark|lead|check|call|send|bring|book|drive|pick up|sort out|deal with|stick|keep an eye|run|draft|write up|stay on|box out|defend|inbound)(?: (?:the|their|our|your|my|his|her|this|that|these|those|a|an|it|them|him|her|on|with|to|out|up|number|point|ball|notes|minutes|lead)\\b)`,
);
const PLEASE_FIRST = /^(?:please|kindly|pls|plz) (?!qq[np]\d)\w+/;
const ECHO_WH = /\b(?:what|who|where|when|which|why|how)(?: exactly)?$/;
const FOOD_ASKED = new RegExp(`^(?:(?:more|some|a|another|any) )?${FOOD}(?: (?:anyone|anybody|everyone|someone|for (?:you|anyone)))?$`);

/** "Would you like / do you want / who wants ...": an offer of a thing or task, or an invitation to take the floor. */
const WANT = new RegExp(
  `^(?:(would|do|did|will|does|wouldnt|dont|didnt) )?(${ADDRESSEE}|who|whod|youd|which (?:one )?of you)(?: (?:please|just|also|maybe|perhaps|still|else))* (?:(would|d) )?(like|love|want|wants|wanna|care|cares|fancy|fancies|need|needs|mind|minds)\\b ?(.*)$`,
);
const GROUP_SUBJECT = new RegExp(`^(?:${PLURAL_YOU}|who|which|anyone|anybody|someone|somebody|everyone|everybody)`);
const BARE_WANT = /^(?:want|wanna|fancy|care) (to \w.*|\w+ing\b.*)$/;
const FLOOR_AFTER_WANT = new RegExp(`^(?:to )?${FLOOR_VERB}\\b`);
const NEED_OFFERED = /^(?:me to|us to|help|a hand|anything|something|a|an|some|any|another|more|water|coffee|tea)\b/;

const wantPair = (aux: string | undefined, subject: string, modal: string | undefined, verb: string, rest: string, asked: boolean): PairType | null => {
  const group = GROUP_SUBJECT.test(subject);
  // "you want to know what happened" is a statement; without an auxiliary only a group subject or "?" asks.
  if (!aux && !modal && !group && !asked) return null;
  if (verb.startsWith('mind')) return 'request';
  const polite = aux === 'would' || aux === 'wouldnt' || modal !== undefined;
  if ((verb === 'like' || verb === 'love') && !polite) return group ? 'offer' : 'question';
  if (verb.startsWith('need')) return NEED_OFFERED.test(rest) ? 'offer' : 'question';
  if (/^(?:me|us) to\b/.test(rest)) return 'offer';
  if (FLOOR_AFTER_WANT.test(rest)) return 'invitation';
  return 'offer';
};

/** "Can you / could you / would you + verb": a request by default; a question for perception, memory or opinion. */
const ASK_YOU = new RegExp(`^(can|could|would|will|wont|cant|couldnt|wouldnt)(?: not)? (${ADDRESSEE})${ADV} (\\w+) ?(.*)$`);
const ASK_VERBS = words('hear see believe remember recall imagine think guess understand confirm follow access feel live afford picture spot relate');
const OPINION_VERBS = words('say agree recommend prefer rather consider know expect describe rate call estimate choose vote go change trust have need');
const SPEECH_VERBS = words('tell explain clarify describe remind say confirm');
const WH_OR_IF = /^(?:(?:me|us|everyone|them|the group) )?(?:if|whether|what|how|why|when|where|who|which)\b/;

const askPair = (modal: string, verb: string, rest: string): PairType => {
  if (FLOOR_ACT.test(`${verb} ${rest}`.trim())) return 'invitation';
  if (verb === 'be') return /^(?:able|willing|so kind|kind enough)\b/.test(rest) ? 'request' : 'question';
  if (SPEECH_VERBS.has(verb) && WH_OR_IF.test(rest)) return 'question';
  if (verb === 'make' && /^it\b/.test(rest)) return 'question';
  if (verb === 'see' && /^(?:if|whether)\b/.test(rest)) return 'request';
  if (verb === 'follow' && /^up\b/.test(rest)) return 'request';
  if (verb === 'confirm' && /^with\b/.test(rest)) return 'request';
  if (ASK_VERBS.has(verb)) return 'question';
  if (/^(?:would|will|wont|wouldnt)$/.test(modal) && OPINION_VERBS.has(verb)) return 'question';
  return 'request';
};

/**
 * The first pair part that starts at the beginning of `tail`, if any. `free` says the position
 * starts a clause or follows a vocative, where a bare imperative ("send me the file") is a request.
 */
export const pairAt = (tail: string, free: boolean, asked: boolean, called = false): PairType | null => {
  if (HOW_ARE_YOU.test(tail)) return 'greeting';
  if (OFFER.test(tail)) return 'offer';
  if (INVITATION.test(tail)) return 'invitation';
  const want = WANT.exec(tail);
  if (want) {
    const subject = want[2] ?? '';
    // "chris you wanna take us through the roadmap": after a vocative, "you want" asks without its auxiliary.
    const calledYou = called && /^(?:you|u|ya)$/.test(subject);
    const pair = wantPair(want[1], subject, subject.endsWith('d') ? 'd' : want[3], want[4] ?? '', want[5] ?? '', asked || calledYou);
    if (pair) return pair;
  }
  // "Aigerim, want to trade your property for my railroad?": the same offer without its "do you".
  const bare = BARE_WANT.exec(tail);
  if (bare && (asked || called)) return FLOOR_AFTER_WANT.test(bare[1] ?? '') ? 'invitation' : 'offer';
  const ask = ASK_YOU.exec(tail);
  if (ask) return askPair(ask[1] ?? '', ask[3] ?? '', ask[4] ?? '');
  if (REQUEST.test(tail)) return 'request';
  if (INDIRECT_QUESTION.test(tail)) return 'question';
  if (GREETING.test(tail)) return 'greeting';
  if ([WH_QUESTION, AUX_QUESTION, OPEN_QUESTION, BARE_YOU_QUESTION, BARE_YOUR_QUESTION, BARE_GROUP_QUESTION].some((re) => re.test(tail))) return 'question';
  if (asked && FOOD_ASKED.test(tail)) return 'offer';
  // "deshawn you take the inbound": a task handed out by name, with "you" for emphasis.
  if (called && !asked && YOU_TASK.test(tail)) return 'request';
  // "Help with what exactly?" echoes to ask, it does not direct.
  if (free && (IMPERATIVE.test(tail) || PLEASE_FIRST.test(tail))) return asked && ECHO_WH.test(tail) ? 'question' : 'request';
  return null;
};

/** "I handed it over to Nora last month" reports a hand-over; it does not make one. */
const HANDED_OVER = '(?<!\\b(?:handed|passed|turned|gave|given|went|came|moved|sent|got|get|switched|changed)(?: it| things| this| that| everything)? )';

/** Clause-wide patterns that need not start the clause: "I think it's your turn", "..., isn't it". */
export const INVITATION_ANYWHERE = new RegExp(
  `\\b(?:your (?:turn|floor|go|move)|floor(?:s| is) (?:all )?yours|${HANDED_OVER}(?:over|back) to (?:you|${N})|you(?:re| are| re) (?:up|next|on deck|on the air|on air|live)|you(?:re| are| re) (?:the )?(?:last|final)(?: (?:one|person|speaker|up))?$|you(?:re| are| re) on$|(?:whenever|when|once) (?:you|u)(?:re| are| re| r) ready$|take it away|all yours|kick us off|start us off|get us started|you have the floor|stage is yours|say a few words|introduce (?:yourself|yourselves)|qqp\\d+ turn|${N} (?:is|s|will be) (?:up|next)|hear (?:more )?from (?:you|${N})|hear (?:your|what you|what ${N})|(?:hand|pass|turn)(?: it| things| the floor)?(?: over| back)? to (?:you|${N})|(?:start|begin) with (?:you|${N}))\\b`,
);
const OFFER_CONDITION = `(?:if (?:(?:you|youd|you would|${GROUP}|${N})(?: else)?(?: would)? (?:like|likes|want|wants|prefer|need|needs))|if (?:you think )?(?:that|it) (?:helps|would help|will help|might help|d help)|if (?:(?:you|${GROUP})(?: else)?(?:s|re| is| are| re| gets| get)|youre|(?:anyone|anybody|someone|somebody|everyone|everybody)(?: else)?s) (?:staying late|sticking around|working late|hungry|thirsty|cold|chilly|peckish|interested|keen|up for (?:it|that)|stuck|struggling))`;
/** "I can take that for you", "let me pull up the numbers for you" (not "I hope it gets better for you"). */
const DONE_FOR_YOU =
  '\\b(?:i|we)(?: (?:can|could|will|would|am happy to|m happy to|d be happy to|would be happy to|am going to|m gonna))? (?!hope|wish|think|feel|bet|guess|know|pray|am|m|was)\\w+(?: \\w+){0,6} for (?:you|u)\\b|\\b(?:ill|id|well|let me|happy to|glad to)(?: \\w+){1,6} for (?:you|u)\\b';
/** "I can send you my notes if you like", "if you want, I can walk you through it". */
export const OFFER_ANYWHERE = new RegExp(
  `\\b(?:i|ive|im|ill|id|we|weve|let me|happy to|glad to)\\b.*\\b${OFFER_CONDITION}\\b|\\b${OFFER_CONDITION}\\b.*\\b(?:i|ill|let me|happy to)\\b|${DONE_FOR_YOU}`,
);
export const TAG_QUESTION = new RegExp(
  `\\b(?:${NEG_AUX} (?:it|you|we|they|he|she|there|i|that|${N})|dont you think|wouldnt you say|or not|(?<=\\w \\w+ \\w+ )or|(?:is|isnt) (?:that|it) (?:right|correct|true|so)|(?:in|for|by|from|since|to|with|at|on) (?:what|which|whom|who|where|when)(?: \\w+)?)$`,
);
/** "you said tuesday right": a statement with a subject, then "right" as a tag (not "you're right"). */
export const RIGHT_TAG = new RegExp(
  `\\b(?:you|u|we|were|they|theyre|he|she|i|im|${N}) \\w+(?: \\w+)* (?<!\\b(?:youre|are|is|thats|s|were|was|absolutely|exactly|quite|all|alright|so|be|just|that|this|it|them|things|everything|turn|the|your|my|our|his|her|their|its|to|on|of|in|at|go|do|done|get|got|doing) )(?<!\\bqqp\\d+ )(?:right|correct)$`,
);
/** A second-person word: said to one person once the plural forms (PLURAL_YOU: "you all", "you two") are taken out. */
export const SINGULAR_YOU = /\b(?:you|your|yours|yourself|u|ya|youre|youve|youll|youd)\b/;
