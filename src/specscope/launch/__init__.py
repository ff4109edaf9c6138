"""specscope.launch"""
