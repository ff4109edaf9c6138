"""specscope.surgery"""
