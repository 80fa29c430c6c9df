/**
 * `npm start`: rehearse a scene in the terminal. You take a human participant's seat; the AI
 * personas (and any other humans, simulated) talk with you through the same engine that will
 * drive the WebXR room. Type to speak at any time, even over someone else; commands start with /.
 *
 *   npm start                        pick a scene, play its first human
 *   npm start -- job-interview       a scene by id (or a path to a .yaml file)
 *   npm start -- poster-session --as sam --speed 2 --seed 4 --generator gemini
 *   npm start -- murder-mystery --observe     watch a fully simulated run
 *
 * Without a terminal on stdin (piped, CI), it observes at instant pace and prints the transcript.
 *
 *   npm run rehearse -- --join "ws://localhost:8787/api/sessions/<id>/socket?token=<token>"
 *
 * joins a session on a running server instead, as the participant or observer the token names.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { openConversation } from '../conversation/conversation';
import type { SessionEvent } from '../../shared/events';
import { ServerMessage, type ClientMessage } from '../../shared/protocol/messages';
import { runMetrics } from '../metrics/metrics';
import { createGenerator, generatorNames, type GeneratorName } from '../providers/generator';
import { loadScene } from '../scene/load';
import type { LoadedScene } from '../../shared/scene/schema';
import { provideWordVectors } from '../engine/embeddings';
import { installedWordVectors } from '../providers/word-vectors';

// Similarity compares by meaning with the installation's word vectors (read on the first comparison).
provideWordVectors(installedWordVectors);

const usage = `Rehearse a scene in the terminal.

  npm run rehearse [-- <scene id or file>] [--as <participant id>] [--speed <x>] [--seed <n>]
                       [--generator scripted|gemini|openai|local] [--observe]
  npm run rehearse -- --join <socket URL with ?token=>     join a session on a running server

While it runs, type to speak (you may interrupt), or:
  /hand  /lower  raise or lower your hand      /skip   pass your turn
  /pause /resume  pause the room                /end    end the session     /help
Joined as an observer: /pause /resume /skip /end, /approve <id>, /dismiss <id>, /edit <id> <text>,
  /inject <direction for the next AI turn>`;

interface Options {
  scene?: string;
  as?: string;
  speed: number;
  seed: number;
  generator: GeneratorName;
  observe: boolean;
  join?: string;
}

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

const parseArgs = (args: string[]): Options => {
  const options: Options = { speed: 1.5, seed: Date.now() % 100_000, generator: 'scripted', observe: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = () => args[++i] ?? fail(`${arg} needs a value`);
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    } else if (arg === '--as') options.as = value();
    else if (arg === '--speed') options.speed = Number(value());
    else if (arg === '--seed') options.seed = Number(value());
    else if (arg === '--observe') options.observe = true;
    else if (arg === '--join') options.join = value();
    else if (arg === '--generator') {
      const name = value();
      if (!(generatorNames as readonly string[]).includes(name)) fail(`unknown generator "${name}" (use ${generatorNames.join(', ')})`);
      options.generator = name as GeneratorName;
    } else if (arg.startsWith('--')) fail(`unknown option ${arg}\n\n${usage}`);
    else options.scene = arg;
  }
  if (!(options.speed > 0)) fail('--speed must be a positive number');
  if (!Number.isInteger(options.seed)) fail('--seed must be an integer');
  return options;
};

const sceneFiles = (): string[] =>
  readdirSync('scenes')
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join('scenes', f));

const tty = process.stdout.isTTY;
const paint = (code: number, text: string) => (tty ? `\x1b[${code}m${text}\x1b[0m` : text);
const dim = (text: string) => paint(2, text);
const colours = [36, 33, 35, 32, 34, 31, 96, 93, 95, 92];

type Cast = { title: string; topic: string; participants: readonly { id: string; name: string }[] };

const printer = (scene: Cast, you: string | null) => {
  const name = (id: string | null) => {
    if (!id) return 'everyone';
    const index = scene.participants.findIndex((p) => p.id === id);
    const label = id === you ? 'You' : (scene.participants[index]?.name ?? id);
    return paint(colours[index % colours.length]!, label);
  };
  const say = (line: string) => process.stdout.write(`${line}\n`);
  return (event: SessionEvent): void => {
    switch (event.type) {
      case 'session-start':
        say(paint(1, `\n${scene.title}`));
        say(dim(`${/[.?!]$/.test(scene.topic) ? scene.topic : `${scene.topic}.`} Policy: ${event.policy}.`));
        break;
      case 'snippet-start':
        say(dim(`\n── ${event.title} (${event.turns} turns) ──`));
        break;
      case 'utterance': {
        const to = event.addressee ? ` → ${name(event.addressee)}` : '';
        say(`${name(event.speaker)}${to}: ${event.text}`);
        break;
      }
      case 'backchannel':
        say(dim(`   ${event.kind === 'nod' ? `(${name(event.participant)} nods)` : `${name(event.participant)}: ${event.cue ?? 'mm-hmm'}`}`));
        break;
      case 'interruption':
        say(dim(`   [${name(event.by)} cuts in, ${event.vibe}]`));
        break;
      case 'hand-raise':
        if (event.action === 'raise') say(dim(`   ✋ ${name(event.participant)} raises a hand`));
        if (event.action === 'approve') say(dim(`   the moderator calls on ${name(event.participant)}`));
        break;
      case 'impromptu-start':
        say(dim(`   [${name(event.participant)} steers the conversation: ${event.intent}]`));
        break;
      case 'approval-needed':
        say(dim(`   (instructor) approving ${name(event.participant)}'s ${event.intent} contribution`));
        break;
      case 'human-input-required':
        if (event.participant === you) {
          const why = event.addressedBy ? ` (${name(event.addressedBy)} ${event.pair === 'question' ? 'asked you' : 'is waiting for you'})` : '';
          say(paint(1, `Your turn${why}. Type and press Enter, or /skip.`));
        }
        break;
      case 'system':
        say(dim(`   [${event.level}] ${event.message}`));
        break;
      case 'end':
        say(dim(`\n── end: ${event.reason}, ${event.turns} turns ──`));
        break;
      default:
        break;
    }
  };
};

const ask = (question: string): Promise<string> =>
  new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    rl.question(question, (answer) => {
      rl.close();
      resolve(answer.trim());
    });
  });

const chooseScene = async (options: Options, interactive: boolean): Promise<LoadedScene> => {
  const files = sceneFiles();
  let file = options.scene;
  if (file && !existsSync(file)) file = files.find((f) => basename(f, '.yaml') === options.scene) ?? fail(`no scene "${options.scene}" (scenes: ${files.map((f) => basename(f, '.yaml')).join(', ')})`);
  if (!file && interactive) {
    process.stdout.write('Scenes:\n');
    files.forEach((f, i) => process.stdout.write(`  ${i + 1}. ${basename(f, '.yaml')}\n`));
    const answer = await ask(`Which scene? [1-${files.length}, Enter for 1] `);
    file = files[(Number(answer) || 1) - 1] ?? files[0]!;
  }
  try {
    return await loadScene(file ?? files[0]!);
  } catch (error) {
    return fail((error as Error).message);
  }
};

/** Joins a session on a running server over its realtime socket. */
const joinServer = (url: string): void => {
  const ws = new WebSocket(url);
  let print: ((event: SessionEvent) => void) | null = null;
  let role = 'participant';
  const send = (message: ClientMessage) => ws.send(JSON.stringify(message));
  ws.on('unexpected-response', (_request, response) => fail(`the server refused to join: HTTP ${response.statusCode}`));
  ws.on('error', (error) => fail(`cannot reach the server: ${error.message}`));
  ws.on('message', (data) => {
    const parsed = ServerMessage.safeParse(JSON.parse(String(data)));
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.type === 'welcome') {
      const { snapshot, you } = message;
      role = you.role;
      print = printer({ title: snapshot.scene.title, topic: snapshot.scene.topic, participants: snapshot.participants }, you.participant);
      const me = snapshot.participants.find((p) => p.id === you.participant);
      process.stdout.write(me ? `You are ${me.name}. Type to speak; /help for commands.\n` : `Observing (hidden). /help for commands.\n`);
    } else if (message.type === 'event') {
      print?.(message.event);
      if (message.event.type === 'approval-needed') process.stdout.write(dim(`   /approve ${message.event.proposal} | /edit ${message.event.proposal} <text> | /dismiss ${message.event.proposal}\n`));
    } else if (message.type === 'error') process.stdout.write(dim(`   [error ${message.code}] ${message.message}\n`));
  });
  ws.on('close', () => process.exit(0));
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    const text = line.trim();
    if (!text) return;
    const [command, id = '', ...rest] = text.split(/\s+/);
    const simple: Record<string, ClientMessage> = {
      '/hand': { type: 'raise-hand' },
      '/lower': { type: 'lower-hand' },
      '/pause': { type: 'pause' },
      '/resume': { type: 'resume' },
      '/skip': { type: 'skip-turn' },
      '/end': { type: 'end' },
    };
    if (command === '/help') process.stdout.write(`${usage}\n`);
    else if (command && simple[command]) send(simple[command]!);
    else if (command === '/approve' || command === '/dismiss') send({ type: command === '/approve' ? 'approve' : 'dismiss', proposal: id });
    else if (command === '/edit') send({ type: 'edit', proposal: id, text: rest.join(' ') });
    else if (command === '/inject') send({ type: 'inject', text: text.slice('/inject'.length).trim() });
    else if (text.startsWith('/')) process.stdout.write(`unknown command ${command}; /help\n`);
    else if (role === 'observer') process.stdout.write(dim('   observers do not speak in the room; use /inject to steer\n'));
    else send({ type: 'say', text });
  });
  rl.on('close', () => ws.close());
};

const main = async (): Promise<void> => {
  const options = parseArgs(process.argv.slice(2));
  if (options.join) return joinServer(options.join);
  const interactive = !!process.stdin.isTTY && !options.observe;
  const scene = await chooseScene(options, interactive);
  const humans = scene.participants.filter((p) => p.kind === 'human');
  const you = interactive ? (options.as ?? humans[0]?.id ?? null) : null;
  if (you && !humans.some((h) => h.id === you)) fail(`"${you}" is not a human participant (humans: ${humans.map((h) => h.id).join(', ')})`);

  let generator;
  try {
    generator = createGenerator(options.generator, process.env);
  } catch (error) {
    fail((error as Error).message);
  }
  if (you) {
    const me = scene.participants.find((p) => p.id === you)!;
    process.stdout.write(`You are ${me.name}${me.role ? `, ${me.role}` : ''}. Type to speak at any time; /help for commands.\n`);
  }
  const print = printer(scene, you);
  const conversation = openConversation(scene, {
    seed: options.seed,
    generator: generator!,
    present: you ? [you] : [],
    pace: interactive ? 'realtime' : 'instant',
    speed: options.speed,
    onEvent: (event) => {
      print(event);
      if (event.type === 'approval-needed') conversation.send({ type: 'approval', proposal: event.proposal, decision: 'approve' });
    },
  });

  if (you) {
    const rl = createInterface({ input: process.stdin });
    const commands: Record<string, () => void> = {
      '/hand': () => conversation.send({ type: 'raise-hand', participant: you }),
      '/lower': () => conversation.send({ type: 'lower-hand', participant: you }),
      '/skip': () => conversation.send({ type: 'skip-turn' }),
      '/pause': () => conversation.send({ type: 'pause' }),
      '/resume': () => conversation.send({ type: 'resume' }),
      '/end': () => conversation.send({ type: 'end' }),
      '/help': () => process.stdout.write(`${usage}\n`),
    };
    rl.on('line', (line) => {
      const text = line.trim();
      if (!text) return;
      if (text.startsWith('/')) (commands[text] ?? (() => process.stdout.write(`unknown command ${text}; /help\n`)))();
      else conversation.send({ type: 'say', participant: you, text });
    });
    rl.on('close', () => conversation.send({ type: 'end' }));
    await conversation.ended;
    rl.close();
  }
  const log = await conversation.ended;
  const metrics = runMetrics(log, scene);
  const share = you ? metrics.participants[you]?.speakingShare : undefined;
  process.stdout.write(
    dim(
      `${metrics.turns} turns; evenness ${metrics.evenness?.toFixed(0) ?? '-'}%; ` +
        `answered designations ${metrics.adjacencyCompletion === null ? '-' : `${Math.round(metrics.adjacencyCompletion * 100)}%`}` +
        `${share !== undefined ? `; your speaking share ${Math.round(share * 100)}%` : ''}\n`,
    ),
  );
  process.exit(0);
};

void main();
