// Forces the resource initialiser of this static library to be linked in.
#include <QtGlobal>

void dpxInitResources() {
    Q_INIT_RESOURCE(resources);
}
