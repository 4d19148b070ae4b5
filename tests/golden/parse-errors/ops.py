# Parse errors: op lookup and argument binding against the registry's parameter lists.
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.lod(a, [0, 0], [16, 32])  # error: unknown op 'pl.tile.lod'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32])
        u = pl.tile.add(t, t, t)  # error: pl.tile.add takes 2 arguments, found 3; expected pl.tile.add(lhs, rhs)
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32], space=pl.Mem.Vec)  # error: unknown keyword argument 'space' of pl.tile.load; expected one of: tensor, offsets, shapes, valid_shape, target_memory
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32], offsets=[0, 0])  # error: duplicate argument 'offsets' of pl.tile.load
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec, target_memory=pl.Mem.Mat)  # error: duplicate argument 'target_memory' of pl.tile.load
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0])  # error: missing argument 'shapes' of pl.tile.load; expected pl.tile.load(tensor, offsets, shapes, valid_shape=None, target_memory=None)
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16.0, 32])  # error: argument 'shapes' of pl.tile.load must be a list of integer literals like [16, 32], found float literal 16.0
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX]):
        t = pl.tile.load(a, [0, 0], [n, 32])  # error: argument 'shapes' of pl.tile.load must be a list of integer literals like [16, 32], found name 'n'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32])
        u = pl.tile.move(t, pl.Vec)  # error: unknown name 'pl.Vec'; expected a dtype, pl.Mem.X or a pl. op call
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32])
        u = pl.tile.move(t, target_memory=pl.FP32)  # error: argument 'target_memory' of pl.tile.move must be a memory space like pl.Mem.Vec, found dtype pl.FP32
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32])
        u = pl.tile.move(t, target_memory=pl.Mem.L1)  # error: unknown memory space 'pl.Mem.L1'; expected Vec, Mat, Left, Right or Acc
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.full([16, 32], dtype=pl.FP8, value=0.0)  # error: unknown dtype 'pl.FP8'; expected one of pl.FP16, pl.BF16, pl.FP32, pl.INT8, pl.UINT8, pl.INT32, pl.INT64, pl.INDEX, pl.BOOL
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32])
        u = pl.tile.add(t, pl.tile.exp(t))  # error: argument 'rhs' of pl.tile.add must be a value name, found a call of pl.tile.exp
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, 0, [16, 32])  # error: argument 'offsets' of pl.tile.load must be a list of scalar expressions like [r0, c0], found integer literal 0
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [0, 0], [16, 32])
        u = pl.tile.adds(t, [1])  # error: argument 'rhs' of pl.tile.adds must be a scalar expression, found a list
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, None, [16, 32])  # error: argument 'offsets' of pl.tile.load is required and cannot be None
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(tensor=a, [0, 0], [16, 32])  # error: positional argument follows keyword argument in pl.tile.load
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.load(a, [r=0, 0], [16, 32])  # error: keyword arguments are not allowed inside [...]
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        n = pl.tile.get_block_idx(0)  # error: pl.tile.get_block_idx takes 0 arguments, found 1; expected pl.tile.get_block_idx()
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        n = pl.sqrt(2.0)  # error: unknown op 'pl.sqrt'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        b: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(16, 0)  # error: argument 'valid_shape' of pl.buffer.alloc must be a tuple () or (vr, vc), found integer literal 16
