import ObjectGraph
print("fixture")
