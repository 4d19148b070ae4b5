# Parse errors: the program, class, decorator and function signature.
import numpy as np  # error: expected 'import pypto.language as pl'; no other import is supported
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self):
        pass
# -----
@pl.program
class p:
    def kernel(self):  # error: expected '@pl.function(...)' before a function, found 'def'
        pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.Vector)  # error: unknown function type 'pl.FunctionType.Vector'; expected pl.FunctionType.InCore, AIC, AIV or Orchestration
    def kernel(self):
        pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore, inline=True)  # error: unknown argument 'inline' of @pl.function; expected type=, stage= or buffer_ir_selected=
    def kernel(self):
        pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(a: pl.Tensor[[16, 32], pl.FP32]):  # error: expected 'self' as the first parameter of 'kernel', found 'a'
        pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n):  # error: expected ':' and a type after parameter 'n', found ')'
        pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX] = 3):  # error: default parameter values are not supported
        pass
# -----
class p:  # error: expected '@' to start the '@pl.program' decorator, found 'class'
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self):
        pass
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self):
        pass
x = 1  # error: expected end of file after the program class, found 'x'
# -----
@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self):
        pass
    @pl.function(type=pl.FunctionType.InCore)
    def other(self):  # error: expected an indented block after the definition of 'other', found the end of the indented block
