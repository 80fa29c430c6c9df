/**
 * The page runs under a Content-Security-Policy without 'unsafe-eval' (server/api/security.ts).
 * Zod compiles its object parsers with `new Function` unless told not to, and even its probe for
 * whether it may is a CSP violation: it parses without. main.tsx imports this first, so it holds
 * before any schema parses.
 */
import { z } from 'zod';

z.config({ jitless: true });
