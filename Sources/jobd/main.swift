print("jobd")
