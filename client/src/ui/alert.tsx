/**
 * What went wrong, said where it happened and announced to screen readers; nothing when all is well.
 *
 * ```tsx
 * <Alert message={error} />
 * ```
 */
export const Alert = ({ message }: { message: string | null | undefined }) =>
  message ? (
    <p className="error" role="alert">
      {message}
    </p>
  ) : null;
