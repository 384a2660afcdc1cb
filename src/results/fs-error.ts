/**
 * File-system errors said in words a user can act on.
 *
 * @module
 */

/** "the disk is full", "permission denied", … or the code and message for anything else. */
export function describeFsError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is exhausted';
    case 'EFBIG':
      return 'the file size limit is reached';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'EISDIR':
      return 'a folder is in the way of the file';
    case 'EIO':
      return 'an I/O error of the disk';
    default:
      return err?.code ? `${err.code}: ${err.message}` : String(e);
  }
}
