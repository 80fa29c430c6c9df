/**
 * The last line of defence: an error while rendering shows a page that says so and offers a
 * reload, never a blank page. The error itself is logged for whoever opens the console.
 */
import { Component, type ReactNode } from 'react';

export class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override componentDidCatch(error: Error) {
    console.error('the page failed to render:', error);
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <main className="page problem" data-page="crashed">
        <h1>Something went wrong on this page</h1>
        <p>The page stopped because of an error in it; the session itself goes on, on the server.</p>
        <p>
          <b>What to do:</b> reload the page to rejoin. If it happens again, tell the instructor what you were doing.
        </p>
        <p className="note">Error: {this.state.error.message}</p>
        <button onClick={() => location.reload()}>Reload</button>
      </main>
    );
  }
}
