"""Exceptions raised by hpcjit (the compiler raises these through _compiler),
and Numba's exception and warning names (this module is numba.core.errors
under the drop-in, hpcjit.numba).

The four classes the compiler raises are hpcjit's own; Numba's names are
aliases of them where Numba raises the same kind of error, and subclasses
in Numba's hierarchy otherwise, so that `except NumbaError` /
`except TypingError` in code written for Numba catch what hpcjit raises."""


class HpcjitError(Exception):
    """Base class of hpcjit's compilation errors."""


class TypingError(HpcjitError):
    """A type error found while compiling (file:line:col, source line, caret)."""


class UnsupportedError(HpcjitError):
    """Valid Python outside the subset hpcjit compiles, or a Numba feature
    hpcjit does not have yet."""


class LoweringError(HpcjitError):
    """Code generation failed (a compiler bug, or LLVM refused the module)."""


class HpcjitSyntaxError(HpcjitError, SyntaxError):
    """The function's source does not parse."""


# ---- Numba's names ------------------------------------------------------------
NumbaError = HpcjitError
# hpcjit raises TypingError for these; Numba raises them for some type errors
NumbaTypeError = TypingError
NumbaNotImplementedError = UnsupportedError


class UnsupportedBytecodeError(UnsupportedError):
    pass


class UnsupportedParforsError(UnsupportedError):
    pass


class UnsupportedRewriteError(UnsupportedError):
    pass


class NumbaValueError(TypingError):
    pass


class NumbaIndexError(TypingError):
    pass


class NumbaKeyError(TypingError):
    pass


class NumbaAttributeError(TypingError):
    pass


class NumbaAssertionError(TypingError):
    pass


class LiteralTypingError(TypingError):
    pass


class RequireLiteralValue(TypingError):
    pass


class UntypedAttributeError(TypingError):
    pass


class CompilerError(HpcjitError):
    pass


class InternalError(HpcjitError):
    pass


class InternalTargetMismatchError(InternalError):
    pass


class NonexistentTargetError(InternalError):
    pass


class IRError(HpcjitError):
    pass


class NotDefinedError(IRError):
    pass


class RedefinedError(IRError):
    pass


class VerificationError(IRError):
    pass


class ConstantInferenceError(HpcjitError):
    pass


class ByteCodeSupportError(HpcjitError):
    pass


class DeprecationError(HpcjitError):
    pass


class ForbiddenConstruct(LoweringError):
    pass


class ForceLiteralArg(HpcjitError):
    """Raised by an overload's typing function that needs some arguments as
    literals (extending.SentryLiteralArgs): hpcjit then types the call with
    the literal types of its constant arguments."""

    def __init__(self, arg_indices=(), fold_arguments=None, loc=None):
        self.requested_args = frozenset(arg_indices)
        self.fold_arguments = fold_arguments
        self.loc = loc
        super().__init__(f"arguments at positions {sorted(self.requested_args)} must be literals "
                         "(compile-time constants)")

    def bind_fold_arguments(self, fold_arguments):
        return ForceLiteralArg(self.requested_args, fold_arguments, self.loc)


class NumbaRuntimeError(HpcjitError):
    pass


# Warnings (hpcjit issues none of these today; programs filter them)
class NumbaWarning(Warning):
    pass


class NumbaPerformanceWarning(NumbaWarning):
    pass


class NumbaDeprecationWarning(NumbaWarning, DeprecationWarning):
    pass


class NumbaPendingDeprecationWarning(NumbaWarning, PendingDeprecationWarning):
    pass


class NumbaParallelSafetyWarning(NumbaWarning):
    pass


class NumbaTypeSafetyWarning(NumbaWarning):
    pass


class NumbaExperimentalFeatureWarning(NumbaWarning):
    pass


class NumbaInvalidConfigWarning(NumbaWarning):
    pass


class NumbaPedanticWarning(NumbaWarning):
    pass


class NumbaIRAssumptionWarning(NumbaPedanticWarning):
    pass


class NumbaDebugInfoWarning(NumbaWarning):
    pass


class NumbaSystemWarning(NumbaWarning):
    pass


HpcjitWarning = NumbaWarning
