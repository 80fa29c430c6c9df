/**
 * The client's entry: `/room/<session>?token=…` opens a session's room (lobby first), `/` the
 * home page (scenes, and creating a session with the admin token).
 */
import { createRoot } from 'react-dom/client';
import { Home } from './pages/home';
import { RoomPage } from './pages/room-page';

const room = /^\/room\/([^/]+)\/?$/.exec(location.pathname);
const params = new URLSearchParams(location.search);

createRoot(document.getElementById('root')!).render(
  room ? <RoomPage session={decodeURIComponent(room[1]!)} token={params.get('token') ?? ''} test={params.get('test') === '1'} /> : <Home />,
);
