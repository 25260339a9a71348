"""Exceptions of the fp8q package.

/// One hierarchy so that callers can catch runtime rejections apart from
/// their own bugs: every runtime status other than FP8Q_OK is an
/// Fp8qRuntimeError carrying the status and the runtime's one-line message.
"""


class Fp8qError(Exception):
    """/// Base of every fp8q exception."""


class LibraryNotFoundError(Fp8qError, OSError):
    """/// The runtime shared library could not be located or loaded."""


class Fp8qRuntimeError(Fp8qError, ValueError):
    """/// The runtime rejected a call (status != FP8Q_OK); nothing was written."""

    def __init__(self, status, status_name, message):
        super().__init__(f"{status_name}: {message}")
        self.status = status
        self.status_name = status_name
        self.message = message


class ContractError(Fp8qRuntimeError):
    """/// A scale (or weight) layout breaks the kernel's contract
    /// (fp8q_contracts.h): the kernel would read it scrambled."""
