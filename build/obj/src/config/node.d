build/obj/src/config/node.o: src/config/node.c src/config/node.h
src/config/node.h:
