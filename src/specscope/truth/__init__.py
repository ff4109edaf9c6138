"""specscope.truth"""
