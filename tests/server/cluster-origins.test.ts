/**
 * CLUSTER_ORIGINS (server/config.ts): the origins a cluster's pages are served from, which every
 * node lets call it (server/api/security.ts). Only origins are taken: a wildcard, a path or another
 * scheme is refused at start with the variable named, and the list is kept as origins, once each.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';

describe('CLUSTER_ORIGINS', () => {
  it('is read as origins, each once, case and a trailing slash aside', () => {
    const config = loadConfig({ CLUSTER_ORIGINS: 'https://rehearse.example.org, https://node1.rehearse.example.org/,http://10.0.0.2:8787,https://rehearse.example.org' });
    expect(config.clusterOrigins).toEqual(['https://rehearse.example.org', 'https://node1.rehearse.example.org', 'http://10.0.0.2:8787']);
    expect(loadConfig({}).clusterOrigins).toEqual([]);
  });

  it.each(['*', 'https://*.example.org', 'https://rehearse.example.org/app', 'rehearse.example.org', 'wss://rehearse.example.org', 'https://rehearse.example.org?x=1'])('refuses %s', (value) => {
    expect(() => loadConfig({ CLUSTER_ORIGINS: value })).toThrow(/CLUSTER_ORIGINS: must be http:\/\/ or https:\/\/ origins separated by commas/);
  });
});
