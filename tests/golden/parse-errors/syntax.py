# Parse errors: tokens, brackets, indentation and Python syntax outside the supported subset.
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32])
        u = t $ 2  # error: unexpected character '$'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0],  # error: '(' was never closed
                         [16, 32]
        return t
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0), [16, 32])  # error: closing ')' does not match opening '['
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32])
            u = pl.tile.exp(t)  # error: unexpected indent
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        for i in pl.range(4):
            t = pl.tile.load(a, [0, 0], [16, 32])
          u = i + 1  # error: unindent does not match any outer indentation level
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        for i in pl.range(4)  # error: expected ':' after the for header, found NEWLINE
            t = pl.tile.load(a, [0, 0], [16, 32])
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        if n < 2:
            pl.yield_()
        elif n < 4:  # error: 'elif' is not supported; write 'else:' with a nested 'if'
            pl.yield_()
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        b = 0 < n < 4  # error: chained comparisons are not supported; combine comparisons with 'and'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        b = n ** 2  # error: '**' (power) is not supported
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        b = n / 2  # error: '/' is not supported; use '//' (floor division) on scalars
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, *offsets)  # error: star-arguments are not supported
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, **kwargs)  # error: star-arguments are not supported
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        m = max(n, 2)  # error: calls to 'max' are not supported; only pl. ops can be called
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        return n  # error: 'return' must be the last statement of the function
        m = n + 1
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        if n < 2:
            return n  # error: 'return' is only allowed as the last statement of the function body
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        f = lambda: n  # error: lambda expressions are not supported
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        def helper(self):  # error: nested function definitions are not supported
            pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        while n > 0:  # error: 'while' loops are not supported; write 'for (c1, ...) in pl.while_(init_values=(...)):'
            pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        m = "n"  # error: string literals are not supported
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        n += 1  # error: '+=' is not supported; bind a new name with '='
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        a, b = n, n  # error: several assignment targets are only allowed with pl.yield_(...)
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        a = b = n  # error: chained assignment is not supported
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        # error@+1: backslash line continuation is not supported; wrap the expression in brackets
        m = n + \
            1
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        m = 016  # error: leading zeros in integer literal '016' are not allowed
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        m = n.shape  # error: attribute access on 'n' is not supported
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        m = n + 1; k = m  # error: ';' is not supported; write one statement per line
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        m = 99999999999999999999  # error: integer literal 99999999999999999999 does not fit in 64 bits
