# Verifier errors: regions, yields, conditions and returns.
@pl.program
class yield_arity:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc,) in pl.range(0, 4, 1, init_values=(x,)):
            nxt = pl.tile.adds(acc, 1.0)
            r1, r2 = pl.yield_(nxt, acc)  # error: pl.yield_: 2 values for 1 loop carry; expected one value per carry
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class loop_without_yield:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc,) in pl.range(0, 4, 1, init_values=(x,)):  # error: loop with 1 carry does not end with pl.yield_; expected its body to end with pl.yield_ of 1 value
            nxt = pl.tile.adds(acc, 1.0)
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class yield_type_differs_from_carry:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc,) in pl.range(0, 4, 1, init_values=(x,)):
            part = pl.tile.set_validshape(acc, 8, 32)
            nxt = pl.yield_(part)  # error: pl.yield_: value for carry 'acc' differs from its type (valid_shape full vs [8, 32]); expected pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]
        r = pl.tile.store(nxt, [0, 0], out)
        return r
# -----
@pl.program
class if_arms_bind_different_names:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], flag: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        if flag:
            t = pl.tile.exp(x)
            y = pl.yield_(t)
        else:
            u = pl.tile.neg(x)
            z = pl.yield_(u)  # error: if arms bind different names: then (y), else (z); expected both arms to bind the same names
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class if_arms_yield_different_types:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP16], flag: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        h = pl.tile.load(b, [0, 0], [16, 32])
        if flag:
            y = pl.yield_(x)
        else:
            y = pl.yield_(h)  # error: if arms yield different types for 'y' (dtype FP32 vs FP16); expected both arms to yield the same type
        r = pl.tile.store(y, [0, 0], out)
        return r
# -----
@pl.program
class if_with_results_without_else:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], flag: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        if flag:  # error: if with results (y) has no else; expected an else arm ending with pl.yield_
            t = pl.tile.exp(x)
            y = pl.yield_(t)
        r = pl.tile.store(y, [0, 0], out)
        return r
# -----
@pl.program
class non_bool_if_condition:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        if n:  # error: if: condition has type INDEX; expected BOOL
            r1 = pl.tile.store(x, [0, 0], out)
        return out
# -----
@pl.program
class non_bool_while_condition:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        for (k,) in pl.while_(init_values=(0,)):
            pl.cond(n - k)  # error: pl.cond: condition has type INDEX; expected BOOL
            k1 = pl.yield_(k + 1)
        return out
# -----
@pl.program
class loop_bound_not_index:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INT32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        for i in pl.range(0, n, 1):  # error: for: stop has type INT32; expected INDEX
            x = pl.tile.load(a, [0, 0], [16, 32])
        return out
# -----
@pl.program
class zero_loop_step:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        for i in pl.range(0, 4, 0):  # error: for: step is 0; expected a nonzero step
            x = pl.tile.load(a, [0, 0], [16, 32])
        return out
# -----
@pl.program
class tensor_carry_changes_parameter:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        for i, (o,) in pl.range(0, 4, 1, init_values=(out,)):
            o2 = pl.yield_(a)  # error: pl.yield_: tensor carry 'o' starts as Out parameter 'out' but is yielded as In parameter 'a'; expected a tensor carry to keep referring to the same parameter
        return o2
# -----
@pl.program
class return_type_mismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        return out  # error: return: value 1 differs from the declared result (shape [16, 32] vs [16, 16]); expected pl.Tensor[[16, 32], pl.FP32]
# -----
@pl.program
class missing_return:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],  # error: function 'kernel' declares 1 result but its body does not end with return; expected a final return statement
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
