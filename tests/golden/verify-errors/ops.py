# Verifier errors: per-op type rules (semantics.md §2).
@pl.program
class binary_shape_mismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.load(a, [0, 0], [16, 64])
        z = pl.tile.add(x, y)  # error: tile.add: operand shapes differ ([16, 32] vs [16, 64]); expected equal physical shapes
        r = pl.tile.store(z, [0, 0], out)
        return r
# -----
@pl.program
class binary_dtype_mismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.load(b, [0, 0], [16, 32])
        z = pl.tile.mul(x, y)  # error: tile.mul: operand dtypes differ (FP32 vs FP16); expected equal dtypes
        r = pl.tile.store(z, [0, 0], out)
        return r
# -----
@pl.program
class unary_on_integers:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 32], pl.INT32]]) -> pl.Tensor[[16, 32], pl.INT32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.exp(x)  # error: tile.exp: operand tile has dtype INT32; expected FP16 or FP32
        r = pl.tile.store(y, [0, 0], out)
        return r
# -----
@pl.program
class tile_scalar_with_bool:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.adds(x, True)  # error: tile.adds: rhs has type BOOL; expected a numeric scalar (INDEX, INT32, INT64 or FP32)
        r = pl.tile.store(y, [0, 0], out)
        return r
# -----
@pl.program
class load_into_left:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        x = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Left)  # error: tile.load: target_memory Left cannot be loaded from GM; expected Vec or Mat
        return out
# -----
@pl.program
class store_to_in_tensor:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        r = pl.tile.store(x, [0, 0], a)  # error: tile.store: output_tensor refers to In parameter 'a'; expected an Out or InOut parameter (or a tensor derived from one)
        return out
# -----
@pl.program
class store_dtype_conversion_from_vec:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP16]]) -> pl.Tensor[[16, 32], pl.FP16]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        r = pl.tile.store(x, [0, 0], out)  # error: tile.store: cannot store a Vec FP32 source into an FP16 tensor; expected an FP32 tensor
        return r
# -----
@pl.program
class slice_window_outside_source:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        w = pl.tile.slice(x, [8, 16], [12, 0])  # error: tile.slice: window at [12, 0] of extent [8, 16] lies outside the [16, 32] source; expected it inside on both axes
        r = pl.tile.store(w, [0, 0], out)
        return r
# -----
@pl.program
class reshape_of_col_major_tile_with_short_rows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[3, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[12, 8], pl.FP32]]) -> pl.Tensor[[12, 8], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [3, 32])
        t = pl.tile.transpose_view(x)
        m = pl.tile.reshape(t, [12, 8])  # error: tile.reshape: a reshape reads the col-major (DN) [32, 3] FP32 tile through a row-major copy, whose rows of 12 bytes break the Vec 32-byte row rule; expected columns filling 32-byte rows
        r = pl.tile.store(m, [0, 0], out)
        return r
# -----
@pl.program
class slice_of_col_major_tile_drops_rows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        t = pl.tile.transpose_view(x)
        w = pl.tile.slice(t, [16, 8], [8, 0])  # error: tile.slice: a window of [16, 8] of the col-major (DN) [32, 16] tile drops rows; expected a window of all 32 rows (or one column): a DN window strides its columns by its own row count
        r = pl.tile.store(w, [0, 0], out)
        return r
# -----
@pl.program
class assemble_union_not_prefix:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 16])
        s = pl.tile.load(a, [0, 0], [8, 16])
        u = pl.tile.assemble(t, s, [8, 16])  # error: tile.assemble: the union of the target's valid region [8, 16] and the written rectangle at [8, 16] of extent [8, 16] is not a prefix rectangle; expected the write to extend the valid region along one axis
        r = pl.tile.store(u, [0, 0], out)
        return r
# -----
@pl.program
class reshape_valid_not_flat_prefix:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[4, 16])
        y = pl.tile.reshape(x, [32, 16])  # error: tile.reshape: valid_shape [4, 16] of a [16, 32] tile is not a row-major prefix; expected valid columns = 32 or one valid row
        r = pl.tile.store(y, [0, 0], out)
        return r
# -----
@pl.program
class reshape_prefix_not_representable:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 8], pl.FP32]]) -> pl.Tensor[[64, 8], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[1, 20])
        y = pl.tile.reshape(x, [64, 8])  # error: tile.reshape: the 20 valid elements of valid_shape [1, 20] of a [16, 32] tile are not a prefix rectangle of [64, 8]; expected 8 to divide 20 or at most 8 valid elements
        r = pl.tile.store(y, [0, 0], out)
        return r
# -----
@pl.program
class reshape_changes_element_count:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.reshape(x, [8, 32])  # error: tile.reshape: element count changes ([16, 32] has 512, [8, 32] has 256); expected the same number of elements
        return out
# -----
@pl.program
class matmul_operand_in_wrong_space:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        br = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(am, br)  # error: tile.matmul: operand lhs is in Mat; expected a Left tile
        r = pl.tile.store(c, [0, 0], out)
        return r
# -----
@pl.program
class matmul_contraction_mismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al = pl.tile.move(am, target_memory=pl.Mem.Left)
        br = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(al, br)  # error: tile.matmul: contraction extents differ (lhs [16, 32], rhs [16, 16]); expected lhs columns = rhs rows
        r = pl.tile.store(c, [0, 0], out)
        return r
# -----
@pl.program
class matmul_acc_non_bool_init_cond:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al = pl.tile.move(am, target_memory=pl.Mem.Left)
        br = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(al, br)
        d = pl.tile.matmul_acc(c, al, br, init_cond=1)  # error: tile.matmul_acc: init_cond has type INDEX; expected BOOL
        r = pl.tile.store(d, [0, 0], out)
        return r
# -----
@pl.program
class move_mat_to_vec:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        v = pl.tile.move(am, target_memory=pl.Mem.Vec)  # error: tile.move: cannot transfer a Mat tile to Vec; expected Mat->Left, Mat->Right, Vec->Vec, Vec->Mat, Acc->Mat or Acc->Vec
        r = pl.tile.store(v, [0, 0], out)
        return r
# -----
@pl.program
class extract_off_box_boundary:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 32], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        l = pl.tile.extract(am, 8, 0, [16, 16], target_memory=pl.Mem.Left)  # error: tile.extract: offset [8, 0] is not on a 16 x 16 box boundary of the Mat FP16 tile; expected box-aligned offsets
        return out
# -----
@pl.program
class store_acc_into_int32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.INT32]]) -> pl.Tensor[[16, 16], pl.INT32]:
        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al = pl.tile.move(am, target_memory=pl.Mem.Left)
        br = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(al, br)
        r = pl.tile.store(c, [0, 0], out)  # error: tile.store: cannot store an Acc FP32 source into an INT32 tensor; expected an FP32, FP16 or BF16 tensor
        return r
# -----
@pl.program
class reduction_of_empty_tile:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[0, 32])
        s = pl.tile.col_sum(x)  # error: tile.col_sum: input valid_shape [0, 32] is empty; expected a non-empty valid region
        r = pl.tile.store(s, [0, 0], out)
        return r
# -----
@pl.program
class offsets_of_wrong_dtype:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], k: pl.Scalar[pl.INT32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [k, 0], [16, 32])  # error: tile.load: argument offsets has an element of type INT32; expected INDEX
        return out
