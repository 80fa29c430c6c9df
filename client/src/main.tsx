/**
 * The client's entry: `/room/<session>?token=…` opens a session's room (its brief first),
 * `/review/<session>?token=…` its review, `/replay/<session>?token=…` its 3D replay, `/debrief/<session>?token=…` a trainee's debrief, `/sessions` the instructors' sessions page, `/compare?sessions=<ids>` sessions side by side, `/editor?token=<admin>` the scene editor, `/` the home page (scenes, and creating a session
 * with the admin token). An error while rendering shows
 * a page that says so (ui/error-boundary.tsx), never a blank one.
 */
import './no-eval';
import { lazy, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { Home } from './sessions/home';
import { RoomPage } from './room/page';
import { SessionsPage } from './sessions/page';
import { ErrorBoundary } from './ui/error-boundary';

// The review and its charts (ECharts) load only when a review is opened, not with every room.
const ReviewPage = lazy(() => import('./review/page').then((m) => ({ default: m.ReviewPage })));
// The replay's 3D room comes with the room page; its own code loads only when a replay is opened.
const ReplayPage = lazy(() => import('./replay/page').then((m) => ({ default: m.ReplayPage })));
const DebriefPage = lazy(() => import('./debrief/page').then((m) => ({ default: m.DebriefPage })));
const ComparePage = lazy(() => import('./compare/page').then((m) => ({ default: m.ComparePage })));
// The editor (React Flow, its forms) loads only for authors.
const EditorPage = lazy(() => import('./editor/page').then((m) => ({ default: m.EditorPage })));
const room = /^\/room\/([^/]+)\/?$/.exec(location.pathname);
const review = /^\/review\/([^/]+)\/?$/.exec(location.pathname);
const debrief = /^\/debrief\/([^/]+)\/?$/.exec(location.pathname);
const replay = /^\/replay\/([^/]+)\/?$/.exec(location.pathname);
const params = new URLSearchParams(location.search);

createRoot(document.getElementById('root')!).render(
  <ErrorBoundary>
    {room ? (
      <RoomPage session={decodeURIComponent(room[1]!)} token={params.get('token') ?? ''} test={params.get('test') === '1'} />
    ) : review ? (
      <Suspense fallback={<main className="page">Opening the review…</main>}>
        <ReviewPage session={decodeURIComponent(review[1]!)} token={params.get('token') ?? ''} test={params.get('test') === '1'} />
      </Suspense>
    ) : replay ? (
      <Suspense fallback={<main className="page">Opening the replay…</main>}>
        <ReplayPage session={decodeURIComponent(replay[1]!)} token={params.get('token') ?? ''} test={params.get('test') === '1'} />
      </Suspense>
    ) : debrief ? (
      <Suspense fallback={<main className="page">Opening your debrief…</main>}>
        <DebriefPage session={decodeURIComponent(debrief[1]!)} token={params.get('token') ?? ''} />
      </Suspense>
    ) : /^\/compare\/?$/.test(location.pathname) ? (
      <Suspense fallback={<main className="page">Opening the comparison…</main>}>
        <ComparePage ids={(params.get('sessions') ?? '').split(',').filter(Boolean)} />
      </Suspense>
    ) : /^\/editor\/?$/.test(location.pathname) ? (
      <Suspense fallback={<main className="page">Opening the editor…</main>}>
        <EditorPage token={params.get('token') ?? ''} test={params.get('test') === '1'} />
      </Suspense>
    ) : /^\/sessions\/?$/.test(location.pathname) ? (
      <SessionsPage />
    ) : (
      <Home />
    )}
  </ErrorBoundary>,
);
