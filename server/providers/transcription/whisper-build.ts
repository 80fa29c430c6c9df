/**
 * whisper.cpp built on this machine for its CPU: the recogniser's fast path on Linux.
 *
 * ```ts
 * const addon = await buildWhisperAddon({ dir: 'data/models/.runtime', log: console.log, onStep: (step) => show(step) });
 * // "data/models/.runtime/whisper-1.1.1-llama-v0.4.0-linux-x64/whisper.node" (built once, about a CPU-minute)
 * const whisper = loadWhisperAddon(addon); // the same API as @fugood/whisper.node's module
 * ```
 *
 * Why: @fugood/whisper.node's prebuilt linux-x64 binaries (default, vulkan and cuda alike) are
 * compiled without AVX, so base.en costs ~5.5 CPU-seconds per second of audio on a 2-core Xeon:
 * never live. Its package ships whisper.cpp's and its addon's sources but not the ggml core
 * (nor the patch its CMake file insists on), so it cannot rebuild itself. node-llama-cpp does
 * ship a ggml that picks its CPU kernels at run time (libggml-cpu-haswell.so, -skylakex.so,
 * -sapphirerapids.so, ... one per instruction set, loaded by ggml_backend_load_all_from_path),
 * together with that ggml's source as a git bundle. So this compiles the seven source files of
 * the whisper addon against node-llama-cpp's ggml headers (of the same release as its binaries)
 * and links them to its libggml: nothing is downloaded, and the kernels match the CPU wherever it
 * runs. It needs a C++17 compiler (CXX, default c++) and git; without them, or on another
 * platform, the prebuilt binary stays in use and the log says why.
 *
 * Two changes to the sources, both additive: the addon registers ggml's CPU backend when it loads
 * (the prebuilt links it statically; here it is a plugin), and `audioCtx` is read for whisper as
 * it already is for parakeet, so the encoder can be given the utterance's length rather than
 * Whisper's 30 s window (local.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { loadWhisperModule } from '@fugood/whisper.node';
import { lockModel } from '../../models/lock';

/** The binding's classes, as `loadWhisperModule()` of @fugood/whisper.node returns them. */
export type WhisperModule = Awaited<ReturnType<typeof loadWhisperModule>>;

const run = promisify(execFile);
const require = createRequire(import.meta.url);

export interface WhisperBuildOptions {
  /** Where built addons are kept, one folder per version of their sources (e.g. MODELS_DIR/.runtime). */
  dir: string;
  /** The log: one line when a build starts (or this process waits for another's), one when it is ready. */
  log?: (line: string) => void;
  /** Each step of a build under way, for a progress display: "waiting for another process", "compiled 3 of 8"… */
  onStep?: (step: string) => void;
  /** The C++ compiler; default $CXX, else `c++`. */
  compiler?: string;
}

/** Where the pieces are: the whisper addon's sources, and node-llama-cpp's ggml (binaries and source). */
interface Sources {
  whisper: string;
  ggmlBinaries: string;
  /** libggml's file name in `ggmlBinaries` (libggml.v0.4.0.so). */
  libggml: string;
  llamaBundle: string;
  llamaTag: string;
  /** One folder per combination of versions, so an upgrade builds anew. */
  key: string;
}

/** Why this machine cannot build the addon, or where its sources are. */
export const whisperSources = (): Sources | string => {
  if (process.platform !== 'linux') return `no build for ${process.platform}: its prebuilt whisper.cpp is used`;
  const whisper = dirname(require.resolve('@fugood/whisper.node/package.json'));
  // node-llama-cpp's packages export no package.json: found beside the binding, as npm installs them.
  const modules = dirname(dirname(whisper));
  const llama = join(modules, 'node-llama-cpp');
  const ggmlPackage = join(modules, '@node-llama-cpp', `linux-${process.arch}`);
  if (!existsSync(ggmlPackage)) return `node-llama-cpp's prebuilt ggml for linux-${process.arch} is not installed in ${modules}`;
  const ggmlBinaries = join(ggmlPackage, 'bins', `linux-${process.arch}`);
  const libggml = existsSync(ggmlBinaries) ? readdirSync(ggmlBinaries).find((f) => /^libggml(\.v[\d.]+)?\.so$/.test(f)) : undefined;
  const llamaBundle = join(llama, 'llama', 'gitRelease.bundle');
  if (!libggml || !existsSync(llamaBundle)) return `node-llama-cpp ${llama} has no ggml library or source bundle`;
  const llamaTag = (JSON.parse(readFileSync(join(llama, 'llama', 'llama.cpp.info.json'), 'utf8')) as { tag: string }).tag;
  // Headers and binaries must be the same release: whisper.cpp reads ggml's structs directly.
  const built = (JSON.parse(readFileSync(join(ggmlBinaries, '_nlcBuildMetadata.json'), 'utf8')) as { buildOptions: { llamaCpp: { release: string } } }).buildOptions.llamaCpp.release;
  if (built !== llamaTag) return `node-llama-cpp's ggml binaries (${built}) and source (${llamaTag}) differ`;
  const version = (JSON.parse(readFileSync(join(whisper, 'package.json'), 'utf8')) as { version: string }).version;
  return { whisper, ggmlBinaries, libggml, llamaBundle, llamaTag, key: `whisper-${version}-llama-${llamaTag}-linux-${process.arch}` };
};

/** Registers the best CPU backend for this machine from the folder of the libggml the addon links to. */
const cpuBackend = `#include <dlfcn.h>
#include <string>
#include "ggml-backend.h"
__attribute__((constructor)) static void whisper_node_load_cpu_backend() {
    if (ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)) return;
    Dl_info info;
    if (!dladdr((void *) &ggml_backend_load_all_from_path, &info) || !info.dli_fname) return;
    std::string path = info.dli_fname;
    ggml_backend_load_all_from_path(path.substr(0, path.find_last_of('/')).c_str());
}
`;

const bestOf = '        } else if (key == "bestOf" && value.IsNumber()) {';
/** common.cpp with `audioCtx` read into whisper's parameters (the binding reads it for parakeet only). */
const withAudioContext = (source: string): string => {
  if (source.split(bestOf).length !== 2) throw new Error('@fugood/whisper.node\'s src/common.cpp has changed: cannot add audioCtx');
  return source.replace(bestOf, `        } else if (key == "audioCtx" && value.IsNumber()) {\n            params.audio_ctx = value.As<Napi::Number>().Int32Value();\n${bestOf}`);
};

const compile = async (sources: Sources, work: string, compiler: string, step: (step: string) => void): Promise<string> => {
  const { whisper } = sources;
  step('reading ggml headers from node-llama-cpp\'s source bundle');
  await run('git', ['clone', '--quiet', '--no-checkout', sources.llamaBundle, join(work, 'llama.cpp')]);
  await run('git', ['-C', join(work, 'llama.cpp'), 'checkout', '--quiet', 'HEAD', '--', 'ggml/include']);
  await writeFile(join(work, 'common.cpp'), withAudioContext(readFileSync(join(whisper, 'src', 'common.cpp'), 'utf8')));
  await writeFile(join(work, 'cpu-backend.cpp'), cpuBackend);
  const modules = dirname(dirname(whisper));
  const flags = [
    '-std=c++17', '-O2', '-fPIC', '-DNAPI_VERSION=6', '-DNO_GPU_SUPPORT', '-DWHISPER_VERSION="node"', '-DPARAKEET_VERSION="node"',
    ...[join(work, 'llama.cpp', 'ggml', 'include'), join(whisper, 'whisper.cpp', 'include'), join(whisper, 'whisper.cpp', 'src'), join(whisper, 'src'),
      join(whisper, 'whisper.cpp'), join(whisper, 'whisper.cpp', 'examples'), join(modules, 'node-addon-api'), join(modules, 'node-api-headers', 'include')].map((dir) => `-I${dir}`),
  ];
  const files = [
    join(whisper, 'whisper.cpp', 'src', 'whisper.cpp'), join(whisper, 'whisper.cpp', 'src', 'parakeet.cpp'), join(whisper, 'whisper.cpp', 'examples', 'common-whisper.cpp'),
    join(whisper, 'src', 'WhisperContext.cpp'), join(whisper, 'src', 'ParakeetContext.cpp'), join(whisper, 'src', 'addons.cc'),
    join(work, 'common.cpp'), join(work, 'cpu-backend.cpp'),
  ];
  // Largest first, as many at a time as there are cores: whisper.cpp alone is most of the work.
  const queue = files.map((file, i) => ({ file, object: join(work, `${i}.o`) }));
  const objects = queue.map((q) => q.object);
  let done = 0;
  step(`compiled 0 of ${files.length}`);
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      await run(compiler, [...flags, '-c', next.file, '-o', next.object], { maxBuffer: 16 << 20 }).catch((error: { stderr?: string }) => {
        const said = (error.stderr ?? '').split('\n').filter((line) => line.includes('error')).slice(0, 3).join('; ');
        throw new Error(`${compiler} could not compile ${next.file}${said ? `: ${said}` : ''}`, { cause: error });
      });
      step(`compiled ${++done} of ${files.length}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(2, availableParallelism()) }, worker));
  step('linking');
  const addon = join(work, 'whisper.node');
  await run(compiler, ['-shared', '-o', addon, ...objects, `-L${sources.ggmlBinaries}`, `-l:${sources.libggml}`, '-l:libggml-base.so', `-Wl,-rpath,${sources.ggmlBinaries}`]);
  return addon;
};

/** Loads a built addon: the same classes as `loadWhisperModule()` of @fugood/whisper.node. */
export const loadWhisperAddon = (path: string): WhisperModule => require(path) as WhisperModule;

/** 41_000 -> "41 s": the log's durations. */
const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

/**
 * The path of the addon built for this machine, building it first if needed (one process at a
 * time, server or `npm run models` alike: the others wait for its file). Throws why it cannot be
 * built.
 */
export const buildWhisperAddon = async (options: WhisperBuildOptions): Promise<string> => {
  const log = options.log ?? (() => undefined);
  const step = options.onStep ?? (() => undefined);
  const sources = whisperSources();
  if (typeof sources === 'string') throw new Error(sources);
  const target = join(options.dir, sources.key, 'whisper.node');
  if (existsSync(target)) return target;
  mkdirSync(options.dir, { recursive: true });
  const started = performance.now();
  const release = await lockModel(join(options.dir, `${sources.key}.lock`), {
    onWaiting: () => {
      log('whisper build: another process is building whisper.cpp for this CPU; waiting for it');
      step('waiting for another process\'s build');
    },
  });
  try {
    if (existsSync(target)) {
      log(`whisper build: ready at ${target}, built by another process (waited ${seconds(performance.now() - started)})`);
      return target;
    }
    const work = await mkdtemp(join(tmpdir(), 'whisper-build-'));
    try {
      log(`whisper build: compiling whisper.cpp for this CPU against node-llama-cpp's ggml ${sources.llamaTag} (about a CPU-minute, once per machine)`);
      const addon = await compile(sources, work, options.compiler ?? (process.env.CXX || 'c++'), step);
      step('loading');
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(`${target}.partial`, readFileSync(addon));
      await rename(`${target}.partial`, target);
      try {
        loadWhisperAddon(target);
      } catch (error) {
        // A file that does not load is not kept: the next start would only fail on it again.
        await rm(target, { force: true });
        throw new Error(`the whisper.cpp built here does not load: ${(error as Error).message}`, { cause: error });
      }
      log(`whisper build: ready at ${target} (built in ${seconds(performance.now() - started)})`);
      return target;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  } finally {
    release();
  }
};
