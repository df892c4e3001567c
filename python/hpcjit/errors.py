"""Exceptions raised by hpcjit (the compiler raises these through _compiler)."""


class HpcjitError(Exception):
    """Base class of hpcjit's compilation errors."""


class TypingError(HpcjitError):
    """A type error found while compiling (file:line:col, source line, caret)."""


class UnsupportedError(HpcjitError):
    """Valid Python outside the subset hpcjit compiles."""


class LoweringError(HpcjitError):
    """Code generation failed (a compiler bug, or LLVM refused the module)."""


class HpcjitSyntaxError(HpcjitError, SyntaxError):
    """The function's source does not parse."""


# Numba's names, so that code written for Numba catches the same errors.
NumbaError = HpcjitError
NumbaTypeError = TypingError
NumbaNotImplementedError = UnsupportedError
