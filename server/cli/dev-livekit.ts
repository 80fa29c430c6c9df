/**
 * `npm run dev:livekit`: the product against a local LiveKit server in dev mode. Starts
 * `livekit-server --dev` (it must be on PATH: see README, "LiveKit"), then the session server with
 * LIVEKIT_URL=ws://127.0.0.1:7880 and LiveKit's dev credentials (devkey / secret). Ctrl-C stops both.
 */
import { spawn, spawnSync } from 'node:child_process';

const which = spawnSync('sh', ['-c', 'command -v livekit-server'], { encoding: 'utf8' });
if (which.status !== 0) {
  process.stderr.write(
    'livekit-server is not on PATH.\n' +
      '  macOS:  brew install livekit\n' +
      '  Linux:  curl -sSL https://get.livekit.io | bash\n' +
      '  or download a release from https://github.com/livekit/livekit/releases and put livekit-server on PATH.\n' +
      'Then run npm run dev:livekit again. (npm start works without LiveKit.)\n',
  );
  process.exit(1);
}

const livekit = spawn('livekit-server', ['--dev', '--bind', '127.0.0.1'], { stdio: ['ignore', 'inherit', 'inherit'] });
const env = { ...process.env, LIVEKIT_URL: 'ws://127.0.0.1:7880', LIVEKIT_API_KEY: 'devkey', LIVEKIT_API_SECRET: 'secret' };
const build = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/build-client.ts'], { stdio: 'inherit', env });
if (build.status !== 0) {
  livekit.kill();
  process.exit(build.status ?? 1);
}
const server = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { stdio: 'inherit', env });
const stop = () => {
  server.kill('SIGTERM');
  livekit.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', (code) => {
  livekit.kill('SIGTERM');
  process.exit(code ?? 0);
});
livekit.on('exit', (code) => process.stderr.write(`livekit-server exited (${code}); the session server falls back to its own transport for new sessions\n`));
