# Parse errors: loops, branches, pl.cond and pl.yield_.
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for (c,) in pl.while_(init_values=(n,)):
            c2 = c - 1  # error: the body of a pl.while_ loop must start with pl.cond(CONDITION), found 'c2'
            c3 = pl.yield_(c2)
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for i in pl.range(n):
            pl.cond(i < 3)  # error: pl.cond(...) is only allowed as the first statement of a pl.while_ loop body
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for (c,) in pl.range(n, init_values=(n,)):  # error: a pl.range loop needs an induction variable: 'for i in pl.range(...)' or 'for i, (c1, ...) in pl.range(...)'
            c2 = pl.yield_(c)
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for i, (c,) in pl.while_(init_values=(n,)):  # error: a pl.while_ loop has no induction variable; write 'for (c1, ...) in pl.while_(...)'
            pl.cond(c > 0)
            c2 = pl.yield_(c)
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for i in pl.range(0, n, 1, 2):  # error: pl.range takes 1 to 3 positional arguments (start, stop, step), found 4
            pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for i in pl.range(n, unroll=2):  # error: unknown keyword argument 'unroll' of pl.range; expected init_values=
            pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for i in range(n):  # error: expected pl.range(...) or pl.while_(...) after 'in', found 'range'
            pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for i, c in pl.range(n, init_values=(n,)):  # error: expected '(' around the loop-carried names: 'for i, (c1, c2) in ...', found 'c'
            pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for i, (c,) in pl.range(n, init_values=n):  # error: init_values= must be a tuple like (x1, x2), found name 'n'
            pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        m = pl.yield_(n) + 1  # error: expected NEWLINE at the end of the statement, found '+'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        m = n + pl.yield_(n)  # error: pl.yield_(...) can only be used as a statement ('r = pl.yield_(x)')
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        if n > 0:  # error: expected an indented block after 'if', found 'm'
        m = n
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        if n > 0: m = n  # error: expected NEWLINE after ':' of 'if', found 'm'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for (c,) in pl.while_(init_values=(n,)):
            pl.cond(c > 0, c < 9)  # error: pl.cond takes exactly one positional argument, the loop condition
            c2 = pl.yield_(c)
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]):
        for i in pl.range(n):
            pass
        else:  # error: 'else' without a matching 'if'
            pass
