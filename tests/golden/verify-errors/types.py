# Verifier errors: tile types, annotations and scalar expressions.
@pl.program
class annotation_mismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])  # error: annotation of 'x' differs from the inferred type (dtype FP16 vs FP32); expected pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class annotation_valid_mismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = pl.tile.load(a, [0, 0], [16, 32])  # error: annotation of 'x' differs from the inferred type (valid_shape [8, 32] vs full); expected pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class vec_row_not_32_byte_aligned:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 4])  # error: tile.load: Vec tile [16, 4] has a row of 4 x FP32 = 16 bytes; expected a multiple of 32 bytes (8 columns of FP32)
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class vec_column_not_32_byte_aligned:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [4, 32])
        s = pl.tile.row_sum(x, x)  # error: tile.row_sum: Vec tile [4, 1] has a column of 4 x FP32 = 16 bytes; expected a multiple of 32 bytes (8 rows of FP32)
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class valid_exceeds_shape:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[20, 32])  # error: tile.load: valid_shape [20, 32] lies outside the shape [16, 32]; expected 0 <= valid <= shape on each axis
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class set_validshape_exceeds_shape:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.set_validshape(x, 16, 33)  # error: tile.set_validshape: valid_shape [16, 33] lies outside the shape [16, 32]; expected 0 <= valid <= shape on each axis
        r = pl.tile.store(y, [0, 0], out)
        return r
# -----
@pl.program
class box_misaligned_mat_shape:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        m = pl.tile.load(a, [0, 0], [16, 20], target_memory=pl.Mem.Mat)  # error: tile.load: Mat tile [16, 20] is not a whole number of 16 x 8 FP32 boxes; expected rows a multiple of 16 and columns a multiple of 8
        return out
# -----
@pl.program
class acc_cannot_hold_fp16:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        c = pl.tile.create([16, 16], dtype=pl.FP16, target_memory=pl.Mem.Acc)  # error: tile.create: an Acc tile cannot hold FP16; expected FP32 or INT32
        return out
# -----
@pl.program
class mixed_scalar_dtypes:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], k: pl.Scalar[pl.INT32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        n = k + 1  # error: operator +: operand dtypes differ (INT32 vs INDEX); expected equal scalar dtypes (write pl.const(V, DTYPE) for another dtype)
        x = pl.tile.load(a, [0, 0], [16, 32])
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class const_makes_other_dtypes:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], k: pl.Scalar[pl.INT32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        n = k + pl.const(1, pl.INT32)
        f = 1.5 * 2  # error: operator *: operand dtypes differ (FP32 vs INDEX); expected equal scalar dtypes (write pl.const(V, DTYPE) for another dtype)
        x = pl.tile.load(a, [0, 0], [16, 32])
        r = pl.tile.store(x, [0, 0], out)
        return r
# -----
@pl.program
class const_out_of_range:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        n = pl.const(3000000000, pl.INT32)  # error: const: value 3000000000 does not fit INT32; expected -2^31 <= value < 2^31
        return out
# -----
@pl.program
class logic_on_numbers:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        c = n and True  # error: operator and: operands have types INDEX and BOOL; expected BOOL
        return out
# -----
@pl.program
class tile_in_scalar_expression:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = x + 1  # error: operator +: operand is pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]; expected a scalar
        return out
# -----
@pl.program
class tensor_parameter_dtype:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.INT64],  # error: parameter 'a' has dtype INT64; expected a tensor of FP16, BF16, FP32, INT32 or INT8
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        return out
