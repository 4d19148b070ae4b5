# Verifier errors: names, scopes and SSA. Each case is a whole program; the first diagnostic
# must point at the annotated line, with exactly the annotated message.
@pl.program
class undefined_name:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.add(x, z)  # error: undefined name 'z'; expected a parameter or a value bound earlier
        r = pl.tile.store(y, [0, 0], out)
        return r
# -----
@pl.program
class used_before_definition:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        y = pl.tile.exp(x)  # error: 'x' is used before it is defined; expected a value bound earlier
        x = pl.tile.load(a, [0, 0], [16, 32])
        r = pl.tile.store(y, [0, 0], out)
        return r
# -----
@pl.program
class reassigned_name:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        x = pl.tile.exp(x)  # error: 'x' is already bound in this scope; expected each name to be bound once (SSA)
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class shadowing_in_loop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc,) in pl.range(0, 4, 1, init_values=(x,)):
            x = pl.tile.adds(acc, 1.0)  # error: 'x' shadows a binding of an enclosing scope; expected a fresh name
            nxt = pl.yield_(x)
        r = pl.tile.store(nxt, [0, 0], out)
        return r
# -----
@pl.program
class loop_variable_shadows_parameter:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for n in pl.range(0, 4, 1):  # error: 'n' shadows a binding of an enclosing scope; expected a fresh name
            y = pl.tile.exp(x)
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class name_outside_its_region:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i in pl.range(0, 4, 1):
            inner = pl.tile.exp(x)
        r = pl.tile.store(inner, [0, 0], out)  # error: 'inner' is not in scope here; expected a value bound in this region or an enclosing one
        return r
# -----
@pl.program
class yield_target_rebinds_carry:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc,) in pl.range(0, 4, 1, init_values=(x,)):
            nxt = pl.tile.adds(acc, 1.0)
            acc = pl.yield_(nxt)  # error: 'acc' is already bound in this scope; expected each name to be bound once (SSA)
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class duplicate_parameter:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               a: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:  # error: parameter 'a' is declared twice; expected unique parameter names
        return a
