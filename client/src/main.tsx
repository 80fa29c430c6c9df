/**
 * The client's entry: `/room/<session>?token=…` opens a session's room (its brief first),
 * `/review/<session>?token=…` its review, `/sessions` the instructors' sessions page, `/` the home page (scenes, and creating a session
 * with the admin token). An error while rendering shows
 * a page that says so (ui/error-boundary.tsx), never a blank one.
 */
import './no-eval';
import { createRoot } from 'react-dom/client';
import { Home } from './pages/home';
import { ReviewPage } from './pages/review';
import { RoomPage } from './pages/room-page';
import { SessionsPage } from './pages/sessions';
import { ErrorBoundary } from './ui/error-boundary';

const room = /^\/room\/([^/]+)\/?$/.exec(location.pathname);
const review = /^\/review\/([^/]+)\/?$/.exec(location.pathname);
const params = new URLSearchParams(location.search);

createRoot(document.getElementById('root')!).render(
  <ErrorBoundary>
    {room ? (
      <RoomPage session={decodeURIComponent(room[1]!)} token={params.get('token') ?? ''} test={params.get('test') === '1'} />
    ) : review ? (
      <ReviewPage session={decodeURIComponent(review[1]!)} token={params.get('token') ?? ''} test={params.get('test') === '1'} />
    ) : /^\/sessions\/?$/.test(location.pathname) ? (
      <SessionsPage />
    ) : (
      <Home />
    )}
  </ErrorBoundary>,
);
