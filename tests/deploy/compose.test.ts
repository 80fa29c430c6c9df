/**
 * The deployment files hold together without Docker (CI runs `docker compose config -q` too where
 * Docker exists): compose.yaml's services, their images or builds, dependencies, ports and
 * volumes; each node's environment, interpolated from deploy/compose.env.example, is a
 * configuration the server accepts (server/config.ts); Caddy's sites and upstreams, LiveKit's
 * Redis and webhook, and the Dockerfile's stages, user and health check agree with them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { configVariables, loadConfig } from '../../server/config';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** deploy/compose.env.example, as `docker compose --env-file` reads it. */
const example = Object.fromEntries(
  read('deploy/compose.env.example')
    .split('\n')
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error}; a required variable left unset is an error, as in Compose. */
const interpolate = (text: string, env: Record<string, string>, required: Set<string>): string =>
  text.replace(/\$\{([A-Z_][A-Z0-9_]*)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
    if (kind === '?') required.add(name);
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (kind === '-') return rest ?? '';
    if (kind === '?') throw new Error(`${name}: ${rest}`);
    return value ?? '';
  });

const required = new Set<string>();
const raw = read('compose.yaml');
const compose = parse(interpolate(raw, example, required), { merge: true }) as {
  services: Record<string, { image?: string; build?: string | { context: string }; environment?: Record<string, string>; depends_on?: Record<string, unknown> | string[]; ports?: string[]; expose?: string[]; volumes?: string[]; healthcheck?: unknown; networks?: unknown }>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const nodes = Object.entries(services).filter(([, service]) => service.build !== undefined);
const caddyfile = interpolate(read('deploy/Caddyfile').replace(/\{\$DOMAIN\}/g, '${DOMAIN}'), example, new Set());
const livekit = parse(read('deploy/livekit.yaml')) as { port: number; redis: { address: string }; webhook: { api_key: string; urls: string[] } };

/** Caddy's site blocks: address -> the upstreams of its reverse_proxy. */
const sites = new Map<string, string[]>();
for (const match of caddyfile.matchAll(/^(\S[^{\n]*?)\s*\{\n([\s\S]*?)^\}/gm)) {
  const upstreams = [...match[2]!.matchAll(/reverse_proxy ([^{\n]+)/g)].flatMap((m) => m[1]!.trim().split(/\s+/));
  sites.set(match[1]!.trim(), upstreams);
}

describe('compose.yaml', () => {
  it('has every variable it requires in deploy/compose.env.example', () => {
    for (const name of required) expect(example, name).toHaveProperty(name);
    expect([...required].sort()).toEqual(['ADMIN_TOKEN', 'DOMAIN', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET', 'POSTGRES_PASSWORD', 'TOKEN_SECRET']);
  });

  it('gives every service an image or a build, and every dependency a service', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.image ?? service.build, name).toBeTruthy();
      const context = typeof service.build === 'string' ? service.build : service.build?.context;
      if (context !== undefined) expect(existsSync(join(root, context, 'Dockerfile')), `${name}: ${context}/Dockerfile`).toBe(true);
      const needs = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
      for (const need of needs) expect(Object.keys(services), `${name} depends on ${need}`).toContain(need);
      for (const [need, how] of Object.entries(Array.isArray(service.depends_on) ? {} : (service.depends_on ?? {}))) {
        // Waiting for a service to be healthy needs its health check (the nodes' is in the Dockerfile).
        if ((how as { condition?: string }).condition === 'service_healthy') expect(services[need]!.healthcheck ?? services[need]!.build, `${need}'s health check`).toBeTruthy();
      }
    }
    expect(Object.keys(services).sort()).toEqual(['caddy', 'livekit', 'node1', 'node2', 'postgres', 'redis']);
  });

  it('runs two or more nodes of one image, each a configuration the server accepts, with its own id and public URL', () => {
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    const known = new Set<string>(configVariables);
    const ids = new Set<string>();
    const urls = new Set<string>();
    for (const [name, node] of nodes) {
      const env = node.environment ?? {};
      for (const variable of Object.keys(env)) expect(known, `${name}: ${variable} is read by the server`).toContain(variable);
      const config = loadConfig(env);
      expect(config.databaseUrl, name).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
      expect(config.livekit?.url, name).toBe(`wss://livekit.${example.DOMAIN}`);
      expect(config.recordings, `${name}: recordings every node shares`).toEqual({ kind: 'directory', root: '/recordings' });
      expect(node.volumes, name).toContain('recordings:/recordings');
      expect(config.adminTokenGenerated, `${name}: one admin token for every node`).toBe(false);
      expect(env.TOKEN_SECRET, `${name}: one token secret for every node`).toBe(example.TOKEN_SECRET);
      ids.add(env.NODE_ID!);
      urls.add(config.publicUrl!);
      expect(sites.get(new URL(config.publicUrl!).host), `${name}: Caddy serves its PUBLIC_URL`).toEqual([`${name}:${config.port}`]);
      expect(node.expose, name).toEqual([String(config.port)]);
    }
    expect(ids.size).toBe(nodes.length);
    expect(urls.size).toBe(nodes.length);
    // A page from the balanced address or any node may call every node (CORS, the CSP's connect-src).
    for (const [name, node] of nodes) {
      expect(loadConfig(node.environment ?? {}).clusterOrigins.sort(), `${name}: CLUSTER_ORIGINS`).toEqual([`https://${example.DOMAIN}`, ...urls].sort());
    }
  });

  it('publishes each host port once, and declares every named volume it mounts', () => {
    const published: string[] = [];
    for (const [name, service] of Object.entries(services)) {
      for (const port of service.ports ?? []) {
        const match = /^(\d+(?:-\d+)?):(\d+(?:-\d+)?)(\/(?:tcp|udp))?$/.exec(port);
        expect(match, `${name}: ${port}`).not.toBeNull();
        published.push(`${match![1]}${match![3] ?? '/tcp'}`);
      }
      for (const volume of service.volumes ?? []) {
        const [source] = volume.split(':');
        if (source!.startsWith('.')) expect(existsSync(join(root, source!)), `${name}: ${source}`).toBe(true);
        else expect(Object.keys(compose.volumes), `${name}: ${source}`).toContain(source);
      }
    }
    expect(new Set(published).size).toBe(published.length);
    expect(published).toEqual(expect.arrayContaining(['80/tcp', '443/tcp', '443/udp']));
  });
});

describe('deploy/Caddyfile', () => {
  it('balances the public name across every node, and proxies only to services that exist', () => {
    expect(sites.get(example.DOMAIN!)?.sort()).toEqual(nodes.map(([name]) => `${name}:8787`).sort());
    for (const [site, upstreams] of sites) {
      for (const upstream of upstreams) expect(Object.keys(services), `${site} -> ${upstream}`).toContain(upstream.split(':')[0]);
    }
    expect(sites.get(`livekit.${example.DOMAIN}`)).toEqual([`livekit:${livekit.port}`]);
  });
});

describe('deploy/livekit.yaml', () => {
  it("clusters through the compose file's Redis and signs webhooks to the nodes with their key", () => {
    expect(Object.keys(services)).toContain(livekit.redis.address.split(':')[0]);
    expect(livekit.webhook.api_key).toBe(example.LIVEKIT_API_KEY);
    for (const url of livekit.webhook.urls) {
      const target = new URL(url);
      expect(url).toMatch(/\/api\/livekit\/webhook$/);
      expect(sites.get(`:${target.port}`), url).toEqual(nodes.map(([name]) => `${name}:8787`));
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile.replace(/\\\n/g, ' ').split('\n').filter((line) => line.trim() && !line.trim().startsWith('#'));

  it('builds in stages and runs as a user who is not root, with a health check on /api/health', () => {
    expect(instructions.filter((line) => line.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2);
    const user = instructions.filter((line) => line.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(user!.slice(5).trim()).not.toMatch(/^(root|0)(:|$)/);
    expect(instructions.find((line) => line.startsWith('HEALTHCHECK '))).toMatch(/\/api\/health/);
    expect(instructions.find((line) => line.startsWith('EXPOSE '))).toBe('EXPOSE 8787');
  });

  it('copies only what exists, and leaves local installs, data and secrets out of the build', () => {
    for (const line of instructions.filter((l) => l.startsWith('COPY ') && !l.includes('--from='))) {
      const sources = line.slice(5).trim().split(/\s+/).slice(0, -1);
      for (const source of sources) if (source !== '.') expect(existsSync(join(root, source)), line).toBe(true);
    }
    const ignored = read('.dockerignore').split('\n').map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'data', '.env', 'deploy/compose.env', '.git']));
  });
});
