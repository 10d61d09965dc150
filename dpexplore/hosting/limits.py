"""The server process's open-files limit (standard library only)."""

from __future__ import annotations

__all__ = ["raise_open_files_limit"]


def raise_open_files_limit() -> int:
    """Raise this process's soft open-files limit (``RLIMIT_NOFILE``) to its hard limit; return the new
    soft limit (0 where the platform has no such limit).

    Voila is one process, so its open-files limit (1,024 soft is common) is the whole server's capacity
    in connections, kernels' sockets and files; the hard limit is usually far higher. Children (kernels)
    inherit the raised limit.

    Examples
    --------
    >>> raise_open_files_limit() >= 0
    True
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft == resource.RLIM_INFINITY:
        return 1 << 20
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):  # pragma: no cover - e.g. macOS caps at OPEN_MAX
            pass
    return int(soft)
