/**
 * What a join link that does not open shows: what happened, in plain words, and what to do next.
 */
import type { LinkProblem } from '../net/sessions';

const pages: Record<LinkProblem, { title: string; what: string; next: string }> = {
  'no-token': {
    title: 'This link is incomplete',
    what: 'The link has no access token: part of it was probably cut off when it was copied.',
    next: 'Open the whole link from the message you were sent, or ask for your join link again.',
  },
  'not-found': {
    title: 'There is no such session',
    what: 'This server has no session at this address. The link may be mistyped, or the session was created on another server.',
    next: 'Check the link, or ask the instructor for a new one.',
  },
  expired: {
    title: 'This link has expired',
    what: 'Join links are valid for a limited time, and this one has run out.',
    next: 'Ask the instructor for a new join link.',
  },
  unauthorized: {
    title: 'This link is not valid',
    what: 'The access token in the link was not accepted: it may have been altered or truncated.',
    next: 'Open the link exactly as you received it, or ask the instructor for a new one.',
  },
  forbidden: {
    title: 'This link does not match its session',
    what: 'The access token in the link is for another session than the address names: the address may have been mistyped, or put together from two links.',
    next: 'Open the link exactly as you received it, or ask the instructor for the right one.',
  },
  unreachable: {
    title: 'The server did not answer',
    what: 'The rehearsal server could not be reached, or it failed to answer.',
    next: 'Check your connection and reload the page in a moment.',
  },
  unexpected: {
    title: 'This link could not be opened',
    what: 'The server answered in a way this page does not understand: it may be running another version.',
    next: 'Reload the page; if it stays like this, tell the instructor.',
  },
};

export const LinkProblemPage = ({ problem, detail }: { problem: LinkProblem; detail: string | null }) => {
  const page = pages[problem];
  return (
    <main className="page problem" data-page={problem}>
      <h1>{page.title}</h1>
      <p>{page.what}</p>
      <p>
        <b>What to do:</b> {page.next}
      </p>
      {detail && <p className="note">The server said: {detail}</p>}
      {(problem === 'unreachable' || problem === 'unexpected') && <button onClick={() => location.reload()}>Reload</button>}
      <p>
        <a href="/">Home page</a>
      </p>
    </main>
  );
};
